import Foundation

/// Small inline SVG charts for the report: no script, no external resource, well-formed XML.
public enum SVGChart {
    public struct Series: Sendable {
        public var name: String
        public var color: String
        public var points: [(x: Double, y: Double)]

        public init(name: String, color: String, points: [(x: Double, y: Double)]) {
            self.name = name
            self.color = color
            self.points = points
        }
    }

    static let width = 720.0
    static let height = 240.0
    static let left = 64.0
    static let right = 16.0
    static let top = 28.0
    static let bottom = 40.0

    /// Lines over a shared x axis; `yMax` nil scales to the data.
    public static func lines(title: String, xLabel: String, yLabel: String, series: [Series], yMax: Double? = nil) -> String {
        let xs = series.flatMap { $0.points.map(\.x) }.filter(\.isFinite)
        let ys = series.flatMap { $0.points.map(\.y) }.filter(\.isFinite)
        let xMax = max(xs.max() ?? 1, 1e-9)
        let top = niceCeiling(yMax ?? max(ys.max() ?? 1, 1e-9))
        var svg = open(title: title)
        svg += axes(xMax: xMax, yMax: top, xLabel: xLabel, yLabel: yLabel)
        for s in series {
            let points = s.points.filter { $0.x.isFinite && $0.y.isFinite }
                .map { "\(fmt(px(x: $0.x, xMax: xMax))),\(fmt(py(y: $0.y, yMax: top)))" }
                .joined(separator: " ")
            if !points.isEmpty {
                svg += "<polyline fill=\"none\" stroke=\"\(escape(s.color))\" stroke-width=\"2\" points=\"\(points)\"/>\n"
            }
        }
        svg += legend(series.map { ($0.name, $0.color) })
        return svg + "</svg>\n"
    }

    /// One bar per value (a histogram or a value per player); `labels` under some bars.
    public static func bars(title: String, xLabel: String, yLabel: String, values: [Double], color: String,
                            labels: [Int: String] = [:], yMax: Double? = nil) -> String {
        let clean = values.map { $0.isFinite ? max(0, $0) : 0 }
        let top = niceCeiling(yMax ?? max(clean.max() ?? 1, 1e-9))
        var svg = open(title: title)
        svg += axes(xMax: nil, yMax: top, xLabel: xLabel, yLabel: yLabel)
        let plotWidth = width - left - right
        let n = max(1, clean.count)
        let slot = plotWidth / Double(n)
        let barWidth = max(1, slot * 0.8)
        for (i, v) in clean.enumerated() {
            let x = left + Double(i) * slot + (slot - barWidth) / 2
            let y = py(y: v, yMax: top)
            let h = height - bottom - y
            svg += "<rect x=\"\(fmt(x))\" y=\"\(fmt(y))\" width=\"\(fmt(barWidth))\" height=\"\(fmt(max(0, h)))\" fill=\"\(escape(color))\"/>\n"
            if let label = labels[i] {
                svg += "<text x=\"\(fmt(x + barWidth / 2))\" y=\"\(fmt(height - bottom + 14))\" font-size=\"10\" text-anchor=\"middle\">\(escape(label))</text>\n"
            }
        }
        if clean.isEmpty {
            svg += "<text x=\"\(fmt(width / 2))\" y=\"\(fmt(height / 2))\" text-anchor=\"middle\" fill=\"#888\">no data</text>\n"
        }
        return svg + "</svg>\n"
    }

    // MARK: Parts

    private static func open(title: String) -> String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(fmt(width))\" height=\"\(fmt(height))\" viewBox=\"0 0 \(fmt(width)) \(fmt(height))\" role=\"img\" font-family=\"sans-serif\">\n"
            + "<title>\(escape(title))</title>\n"
            + "<text x=\"\(fmt(left))\" y=\"18\" font-size=\"14\" font-weight=\"bold\">\(escape(title))</text>\n"
    }

    private static func axes(xMax: Double?, yMax: Double, xLabel: String, yLabel: String) -> String {
        let x0 = left, x1 = width - right, y0 = height - bottom, y1 = top
        var s = "<line x1=\"\(fmt(x0))\" y1=\"\(fmt(y0))\" x2=\"\(fmt(x1))\" y2=\"\(fmt(y0))\" stroke=\"#444\"/>\n"
        s += "<line x1=\"\(fmt(x0))\" y1=\"\(fmt(y0))\" x2=\"\(fmt(x0))\" y2=\"\(fmt(y1))\" stroke=\"#444\"/>\n"
        for i in 0...4 {
            let v = yMax * Double(i) / 4
            let y = py(y: v, yMax: yMax)
            s += "<line x1=\"\(fmt(x0))\" y1=\"\(fmt(y))\" x2=\"\(fmt(x1))\" y2=\"\(fmt(y))\" stroke=\"#ddd\"/>\n"
            s += "<text x=\"\(fmt(x0 - 6))\" y=\"\(fmt(y + 4))\" font-size=\"10\" text-anchor=\"end\">\(escape(tick(v)))</text>\n"
        }
        if let xMax {
            for i in 0...4 {
                let v = xMax * Double(i) / 4
                s += "<text x=\"\(fmt(px(x: v, xMax: xMax)))\" y=\"\(fmt(y0 + 14))\" font-size=\"10\" text-anchor=\"middle\">\(escape(tick(v)))</text>\n"
            }
        }
        s += "<text x=\"\(fmt((x0 + x1) / 2))\" y=\"\(fmt(height - 8))\" font-size=\"11\" text-anchor=\"middle\">\(escape(xLabel))</text>\n"
        s += "<text x=\"14\" y=\"\(fmt((y0 + y1) / 2))\" font-size=\"11\" text-anchor=\"middle\" transform=\"rotate(-90 14 \(fmt((y0 + y1) / 2)))\">\(escape(yLabel))</text>\n"
        return s
    }

    private static func legend(_ entries: [(String, String)]) -> String {
        guard entries.count > 1 else { return "" }
        var s = ""
        var x = width - right - 150
        for (name, color) in entries {
            s += "<rect x=\"\(fmt(x))\" y=\"8\" width=\"10\" height=\"10\" fill=\"\(escape(color))\"/>"
            s += "<text x=\"\(fmt(x + 14))\" y=\"17\" font-size=\"11\">\(escape(name))</text>\n"
            x += 75
        }
        return s
    }

    static func px(x: Double, xMax: Double) -> Double { left + (width - left - right) * min(max(x / xMax, 0), 1) }
    static func py(y: Double, yMax: Double) -> Double { height - bottom - (height - bottom - top) * min(max(y / yMax, 0), 1) }

    /// 1, 2 or 5 times a power of ten, at or above `value`.
    static func niceCeiling(_ value: Double) -> Double {
        guard value.isFinite, value > 0 else { return 1 }
        let magnitude = pow(10, floor(log10(value)))
        for step in [1.0, 2, 5, 10] where step * magnitude >= value * (1 - 1e-12) { return step * magnitude }
        return 10 * magnitude
    }

    static func tick(_ v: Double) -> String {
        if v == 0 { return "0" }
        if abs(v) >= 100 || v == v.rounded() { return String(format: "%.0f", v) }
        if abs(v) >= 1 { return String(format: "%.1f", v) }
        return String(format: "%.3g", v)
    }

    static func fmt(_ v: Double) -> String { String(format: "%.1f", v.isFinite ? v : 0) }

    /// Text and attribute escaping for XML.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.count)
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default:
                // XML 1.0 allows no other control characters.
                if c.value < 0x20 && c != "\n" && c != "\t" && c != "\r" { out += " " } else { out.unicodeScalars.append(c) }
            }
        }
        return out
    }
}
