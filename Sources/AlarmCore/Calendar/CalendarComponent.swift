/// One component of a calendar expression (year, month, day, hour, minute or second) as it was
/// written, normalised the way systemd normalises it, so that it prints back in systemd's
/// normalized form: `*`, or a sorted list of items `N`, `N..M`, `N/STEP`, `N..M/STEP`.
///
/// `values` holds the values it allows (for days counted from the month's end, the counts: 1 is
/// the last day); years, which do not fit a `ValueSet`, are matched item by item.
public struct CalendarComponent: Hashable, Sendable {
    /// One item of the list, as systemd keeps it: a range always has a step (1 when none was
    /// written), and `stop` is nil for a single value or an open repetition `N/STEP`.
    public struct Item: Hashable, Sendable {
        public var start: Int
        public var stop: Int?
        /// 0: no repetition.
        public var step: Int

        public init(start: Int, stop: Int? = nil, step: Int = 0) {
            self.start = start
            self.stop = stop
            self.step = step
        }

        /// systemd's order: start, then stop (none first), then step.
        static func < (a: Item, b: Item) -> Bool {
            if a.start != b.start { return a.start < b.start }
            if (a.stop ?? -1) != (b.stop ?? -1) { return (a.stop ?? -1) < (b.stop ?? -1) }
            return a.step < b.step
        }
    }

    /// The allowed values (compared first: the cheap test of two components' equality).
    public private(set) var values: ValueSet
    /// The items; one item (the usual case) is held without an array, so that copying an
    /// expression (the schedule does, per alarm) costs no reference counting.
    private var storage: Storage

    private enum Storage: Hashable, Sendable {
        case all
        case one(Item)
        case many([Item])
    }

    /// Empty for `*`.
    public var items: [Item] {
        switch storage {
        case .all: return []
        case .one(let item): return [item]
        case .many(let items): return items
        }
    }

    /// `*`: every value of `range`.
    public static func all(_ range: ClosedRange<Int>) -> CalendarComponent {
        CalendarComponent(values: range.upperBound < 64 ? ValueSet(range) : ValueSet(), storage: .all)
    }

    /// Single values, e.g. `01,04,07,10`.
    public static func values(_ vs: [Int], in range: ClosedRange<Int>) -> CalendarComponent {
        CalendarComponent(items: normalized(vs.map { Item(start: $0) }), range: range, fromEnd: false)
    }

    /// One value of 0...63.
    static func single(_ v: Int) -> CalendarComponent {
        CalendarComponent(values: ValueSet([v]), storage: .one(Item(start: v)))
    }

    private init(values: ValueSet, storage: Storage) {
        self.values = values
        self.storage = storage
    }

    /// Items already normalised and valid for `range` (see `normalized` and `whyInvalid`).
    /// `fromEnd`: days counted back from the month's end, where `N/STEP` steps towards day 1 of
    /// the count (the end of the month) and stops there.
    init(items: [Item], range: ClosedRange<Int>, fromEnd: Bool) {
        storage = items.isEmpty ? .all : items.count == 1 ? .one(items[0]) : .many(items)
        var set = ValueSet()
        if range.upperBound < 64 {
            if items.isEmpty { set = ValueSet(range) }
            for item in items {
                if let stop = item.stop {
                    for v in stride(from: item.start, through: min(stop, range.upperBound), by: max(item.step, 1)) {
                        set.insert(v)
                    }
                } else if item.step == 0 {
                    set.insert(item.start)
                } else if fromEnd {
                    for v in stride(from: item.start, through: range.lowerBound, by: -item.step) { set.insert(v) }
                } else {
                    for v in stride(from: item.start, through: range.upperBound, by: item.step) { set.insert(v) }
                }
            }
        }
        self.values = set
    }

    public var isAll: Bool { storage == .all }

    /// True when it allows exactly one value: one item without a range or a repetition.
    public var isSingle: Bool {
        if case .one(let item) = storage { return item.stop == nil && item.step == 0 }
        return false
    }

    /// The smallest allowed value >= v (items read directly: for years, which have no `values`).
    /// Counting up only: not for days counted from the month's end.
    func next(atLeast v: Int) -> Int? {
        switch storage {
        case .all: return v
        case .one(let item): return Self.next(item, atLeast: v)
        case .many(let items):
            var best: Int? = nil
            for item in items {
                if let k = Self.next(item, atLeast: v), best == nil || k < best! { best = k }
            }
            return best
        }
    }

    private static func next(_ item: Item, atLeast v: Int) -> Int? {
        if item.start >= v { return item.start }
        guard item.step > 0 else { return nil }
        let k = item.start + item.step * ((v - item.start + item.step - 1) / item.step)
        if let stop = item.stop, k > stop { return nil }
        return k
    }

    // MARK: systemd's normalisation and validity

    /// systemd's `normalize_chain`: a range's stop comes down to its last value, a range of one
    /// value (`5..5`, `5..6/2`) becomes that value, items are sorted and duplicates dropped.
    static func normalized(_ items: [Item]) -> [Item] {
        var out = items.map { item -> Item in
            var i = item
            if let stop = i.stop, stop > i.start, i.step > 0 {
                i.stop = stop - (stop - i.start) % i.step
            }
            if let stop = i.stop, (stop > i.start && i.step > 0 && i.start + i.step > stop) || i.start == stop {
                i.step = 0
                i.stop = nil
            }
            return i
        }
        out.sort(by: <)
        var unique: [Item] = []
        for i in out where unique.last != i { unique.append(i) }
        return unique
    }

    /// systemd's `chain_valid`, with a message a user can act on; nil when every item is valid.
    /// `name`: "hour", "day" ...; `fromEnd`: days counted from the month's end, at most 28, and, as
    /// systemd (252) checks them, 3 fewer for each further item of a list (sorted): `~01,25` is
    /// valid, `~01,26` and `~01,02,25` are not.
    static func whyInvalid(_ items: [Item], name: String, range: ClosedRange<Int>, fromEnd: Bool) -> String? {
        let from = range.lowerBound
        let what = fromEnd ? "\(name) counted from the month's end" : name
        for (k, item) in items.enumerated() {
            let to = fromEnd ? range.upperBound - 3 * (k + 1) : range.upperBound
            var text: String { print([item], width: 0) }
            for v in [item.start] + (item.stop.map { [$0] } ?? []) where v < from || v > to {
                if fromEnd && k > 0 {
                    return "the \(what) \(v) is out of range here: systemd allows up to 28 for the smallest item "
                        + "of a list, and 3 less for each further one (up to \(to) for item \(k + 1))"
                }
                return "the \(what) \(v) is out of range \(from)..\(to)"
            }
            if item.step > to - from {
                return "the \(name) step \(item.step) in '\(text)' is too large: at most \(to - from)"
            }
            if let stop = item.stop {
                if item.start + item.step > stop { return "the \(name) range '\(text)' runs backwards" }
            } else if item.step > 0 {
                if fromEnd && item.start - item.step < from {
                    return
                        "'~\(text)' never repeats: counted from the month's end, \(item.start) - \(item.step) is past the last day (1)"
                }
                if !fromEnd && item.start + item.step > to {
                    return "the \(name) repetition '\(text)' never repeats: \(item.start) + \(item.step) is past \(to)"
                }
            }
        }
        return nil
    }

    // MARK: printing

    /// systemd's `format_chain`: values zero-padded to `width`, steps not.
    static func print(_ items: [Item], width: Int) -> String {
        if items.isEmpty { return "*" }
        var out = ""
        for (n, item) in items.enumerated() {
            if n > 0 { out += "," }
            out += pad(item.start, width)
            if let stop = item.stop { out += ".." + pad(stop, width) }
            if item.step > 0 && !(item.stop != nil && item.step == 1) { out += "/" + String(item.step) }
        }
        return out
    }

    func print(width: Int) -> String { Self.print(items, width: width) }

    /// `print`, appended to `out` (no String, no array of items).
    func write<Sink: ByteSink & ~Copyable>(width: Int, into out: inout Sink) {
        func item(_ item: Item) {
            RFC3339.pad(item.start, width, &out)
            if let stop = item.stop {
                out.append("..")
                RFC3339.pad(stop, width, &out)
            }
            if item.step > 0 && !(item.stop != nil && item.step == 1) {
                out.append(UInt8(ascii: "/"))
                out.append(utf8: String(item.step))
            }
        }
        switch storage {
        case .all: out.append(UInt8(ascii: "*"))
        case .one(let one): item(one)
        case .many(let items):
            for (n, one) in items.enumerated() {
                if n > 0 { out.append(UInt8(ascii: ",")) }
                item(one)
            }
        }
    }

    static func pad(_ v: Int, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}
