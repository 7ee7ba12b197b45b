/// An optional property whose JSON key is always written: its value, or `null` when it is nil.
///
/// A synthesized `Encodable` leaves the key of a nil optional out. The outputs that promise every
/// key, null where absent (`alarm devices --json`, `alarm sounds --json`), wrap their optionals
/// in this and keep the synthesized conformance, instead of spelling out `encode(to:)` key by key.
@propertyWrapper
public struct NullWhenNil<Value: Encodable>: Encodable {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        if let wrappedValue { try c.encode(wrappedValue) } else { try c.encodeNil() }
    }
}

extension NullWhenNil: Equatable where Value: Equatable {}
extension NullWhenNil: Sendable where Value: Sendable {}
