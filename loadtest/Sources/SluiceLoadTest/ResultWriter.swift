import Foundation

/// Writes result.json and report.html into the output folder.
public enum ResultWriter {
    public static func json(_ result: LoadTestResult) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return try encoder.encode(result)
    }

    /// Returns the two paths written.
    @discardableResult
    public static func write(_ result: LoadTestResult, to directory: String) throws -> (json: String, html: String) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let jsonPath = (directory as NSString).appendingPathComponent("result.json")
            let htmlPath = (directory as NSString).appendingPathComponent("report.html")
            try json(result).write(to: URL(fileURLWithPath: jsonPath))
            try Data(HTMLReport.render(result).utf8).write(to: URL(fileURLWithPath: htmlPath))
            return (jsonPath, htmlPath)
        } catch {
            throw LoadTestError.output("cannot write to \(directory) (\((error as NSError).localizedDescription))")
        }
    }
}
