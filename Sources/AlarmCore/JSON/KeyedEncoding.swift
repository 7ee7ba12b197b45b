extension KeyedEncodingContainer {
    /// Each value under its key, in the order given; a nil value as null, so that readers can rely
    /// on the key (the documented keys of `status.json`, history and the event log), or, with
    /// `omittingNil`, without its key (the keys written only where they say something).
    public mutating func encodeEach(_ entries: KeyValuePairs<Key, (any Encodable)?>, omittingNil: Bool = false) throws {
        for (key, value) in entries {
            if let value {
                try encode(value, forKey: key)
            } else if !omittingNil {
                try encodeNil(forKey: key)
            }
        }
    }
}
