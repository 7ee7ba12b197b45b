import FoundationEssentials

/// The last resort (issue #11): when no device would play, the daemon runs `fallback_command`
/// once per ring episode and tells the engine what became of it, for the episode's history.
extension Engine {
    /// True while an episode rings in which `fallback_command` was already run (or tried): the
    /// daemon runs it once per episode, not at every retry of the device chain.
    public var fallbackRanInEpisode: Bool {
        if case .ringing(let r) = state.ring { return r.fallback != nil }
        return false
    }

    mutating func fallbackRan(note: String, _ fx: inout Effects) {
        guard case .ringing(var r) = state.ring else {
            // The episode ended (stopped, snoozed, silenced) before the command did: its history
            // entry is written; the daemon logs the outcome.
            fx.log(.info, "fallback_command: \(note) (after the ring episode ended)")
            return
        }
        r.fallback = note
        state.ring = .ringing(r)
    }
}
