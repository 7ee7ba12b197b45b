import Foundation

@testable import AlarmCore

/// Random systemd.time(7) calendar expressions (seeded), for the comparison with systemd: every
/// element of the syntax, mostly valid, some made invalid on purpose. Never our extensions
/// (wrapping weekday ranges, `weekdays`, `weekends`, `*/STEP`, `daily TIME`, extra blanks), nor
/// what we refuse by design (fractional seconds, `@` timestamps).
struct CalendarGenerator {
    enum Element: String, CaseIterable {
        case weekdays, shortcut, dateWithoutTime, timeWithoutDate, year, twoDigitYear, endOfMonth
        case list, range, step, seconds, zone
    }

    private var rng: SeededRandom
    /// The elements each generated expression holds.
    private(set) var elements: [String: Set<Element>] = [:]

    init(seed: UInt64) { rng = SeededRandom(seed: seed) }

    /// How many of `texts` hold `element` and parse.
    func accepted(_ element: Element, in texts: [String]) -> Int {
        texts.filter { elements[$0]?.contains(element) == true && (try? CalendarExpression($0)) != nil }.count
    }

    private mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &rng) < percent }
    private mutating func int(_ r: ClosedRange<Int>) -> Int { Int.random(in: r, using: &rng) }
    private mutating func pick<T>(_ xs: [T]) -> T { xs.randomElement(using: &rng)! }

    mutating func expression(zones: [String]) -> String {
        var tags = Set<Element>()
        var words: [String] = []
        if chance(6) {
            tags.insert(.shortcut)
            let names = [
                "minutely", "hourly", "daily", "weekly", "monthly", "quarterly", "semiannually", "semi-annually",
                "biannually",
                "bi-annually", "yearly", "annually", "anually", "Daily", "HOURLY", "Weekly",
            ]
            words.append(pick(names))
        } else {
            if chance(35) {
                tags.insert(.weekdays)
                words.append(weekdays())
            }
            let dated = chance(65)
            if dated { words.append(date(&tags)) }
            if !dated || chance(75) {
                words.append(time(&tags))
                if !dated { tags.insert(.timeWithoutDate) }
            } else {
                tags.insert(.dateWithoutTime)
            }
            if words.isEmpty { words.append(time(&tags)) }
        }
        if chance(30) {
            tags.insert(.zone)
            words.append(pick(zones))
        }
        let text = words.joined(separator: " ")
        elements[text] = tags
        return text
    }

    // MARK: weekdays

    private static let dayNames = [
        ["Mon", "Monday", "mon", "MONDAY"], ["Tue", "Tuesday", "tue"], ["Wed", "Wednesday", "wed"],
        ["Thu", "Thursday", "THU"],
        ["Fri", "Friday", "fri"], ["Sat", "Saturday", "sat"], ["Sun", "Sunday", "sun"],
    ]

    private mutating func weekdays() -> String {
        var items: [String] = []
        for _ in 0..<int(1...3) {
            let a = int(0...6)
            switch int(0...9) {
            case 0...4: items.append(pick(Self.dayNames[a]))
            case 5...7:
                let b = int(a...6)
                items.append(pick(Self.dayNames[a]) + pick(["..", "..", "-"]) + pick(Self.dayNames[b]))
            case 8: items.append(pick(["Tues", "Thurs", "Mondays", "Mo"]))  // refused by both
            default: items.append(pick(Self.dayNames[a]) + pick([".", "...", "..", "-"]))  // open or broken
            }
        }
        var text = items.joined(separator: ",")
        if chance(5) { text += "," }
        if chance(3) { text += ",," }
        return text
    }

    // MARK: dates and times

    private mutating func date(_ tags: inout Set<Element>) -> String {
        let tilde = chance(25)
        if tilde { tags.insert(.endOfMonth) }
        let month = component(1...12, width: 2, &tags)
        let day =
            tilde ? component(1...28, width: 2, &tags, bad: 30...31, fromEnd: true) : component(1...31, width: 2, &tags)
        var text = month + (tilde ? "~" : "-") + day
        if chance(55) {
            tags.insert(.year)
            let year: String
            if chance(20) {
                tags.insert(.twoDigitYear)
                year = String(format: "%02d", int(0...99))
            } else if chance(40) {
                year = "*"
            } else {
                year = component(2020...2199, width: 4, &tags, bad: 1960...1969)
            }
            text = year + "-" + text
            if chance(2) { text = text.replacingOccurrences(of: "-", with: "~") }  // '~' before the month
        }
        return text
    }

    private mutating func time(_ tags: inout Set<Element>) -> String {
        var text = component(0...23, width: 2, &tags) + ":" + component(0...59, width: 2, &tags)
        if chance(40) {
            tags.insert(.seconds)
            text += ":" + component(0...59, width: 2, &tags)
        }
        return text
    }

    /// One numeric component; now and then an invalid one (out of range, a step that never
    /// repeats or is too large, `*` in a list, a backwards range, an empty item).
    private mutating func component(
        _ r: ClosedRange<Int>, width: Int, _ tags: inout Set<Element>, bad: ClosedRange<Int>? = nil,
        fromEnd: Bool = false
    ) -> String {
        if chance(30) { return "*" }
        func number(_ v: Int) -> String {
            let plain = String(v)
            return chance(70) ? String(repeating: "0", count: max(0, width - plain.count)) + plain : plain
        }
        var items: [String] = []
        let count = chance(75) ? 1 : int(2...4)
        if count > 1 { tags.insert(.list) }
        let span = r.upperBound - r.lowerBound
        for _ in 0..<count {
            let a = int(r)
            switch int(0...19) {
            case 0...9:
                items.append(number(a))
            case 10...13:
                tags.insert(.range)
                items.append(number(a) + ".." + number(int(a...r.upperBound)))
            case 14...16:
                tags.insert(.step)
                // Repetitions that fit (systemd refuses one that cannot repeat), and some that do not.
                let step = chance(85) ? int(1...max(1, span / 3)) : int(1...(span + 2))
                let start =
                    fromEnd
                    ? int(min(r.upperBound, r.lowerBound + step)...r.upperBound)
                    : int(r.lowerBound...max(r.lowerBound, r.upperBound - step))
                items.append(number(chance(90) ? start : a) + "/" + String(step))
            case 17:
                tags.insert(.range)
                tags.insert(.step)
                let b = int(a...r.upperBound)
                items.append(number(a) + ".." + number(b) + "/" + String(int(1...max(1, span / 2))))
            case 18:
                // Invalid on purpose.
                switch int(0...5) {
                case 0: items.append(number(bad.map { int($0) } ?? r.upperBound + int(1...5)))
                case 1: items.append(number(r.upperBound) + "/" + String(int(1...3)))
                case 2: items.append(number(r.lowerBound) + "/" + String(span + int(1...3)))
                case 3: items.append(a == r.upperBound ? "x" : number(r.upperBound) + ".." + number(a))
                case 4: items.append("*")
                default: items.append("")
                }
            default:
                items.append(number(a))
            }
        }
        return items.joined(separator: ",")
    }
}
