/// Percentiles of plain samples (join times, per-player loss), by the nearest-rank method:
/// the smallest value with at least `fraction` of the samples at or below it.
public enum Percentile {
    /// nil for no samples; `fraction` is clamped to 0...1.
    public static func nearestRank<T: Comparable>(_ values: [T], _ fraction: Double) -> T? {
        guard !values.isEmpty else { return nil }
        return nearestRank(sorted: values.sorted(), fraction)
    }

    /// The same on values already sorted ascending.
    public static func nearestRank<T>(sorted values: [T], _ fraction: Double) -> T? {
        guard !values.isEmpty else { return nil }
        let f = fraction.isNaN ? 0 : min(max(fraction, 0), 1)
        let rank = Int((f * Double(values.count)).rounded(.up))
        return values[min(max(rank, 1), values.count) - 1]
    }
}
