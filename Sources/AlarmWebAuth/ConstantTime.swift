/// Comparisons of secrets whose time does not depend on where they differ: a caller who times
/// many guesses learns nothing about how much of a guess was right.
public enum ConstantTime {
    /// True when `a` and `b` are the same bytes. Every byte of the longer one is visited whatever
    /// the contents; only the lengths (which are public: tokens have one fixed length) show.
    public static func equal<A: Collection<UInt8>, B: Collection<UInt8>>(_ a: A, _ b: B) -> Bool {
        let n = Swift.max(a.count, b.count)
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count) | (a.count == b.count ? 0 : 1)
        var i = a.startIndex
        var j = b.startIndex
        for _ in 0..<n {
            let x: UInt8 = i < a.endIndex ? a[i] : 0
            let y: UInt8 = j < b.endIndex ? b[j] : 0
            difference |= x ^ y
            if i < a.endIndex { i = a.index(after: i) }
            if j < b.endIndex { j = b.index(after: j) }
        }
        return difference == 0
    }

    /// `equal` over the strings' UTF-8 bytes.
    public static func equal(_ a: String, _ b: String) -> Bool {
        equal(Array(a.utf8), Array(b.utf8))
    }
}
