import AlarmSystem
import AlarmWebAuth

/// alarm-web's own bound on its memory (`web_memory_limit`): checked every second; past it, it
/// closes connections (those waiting longest first, the owner's last) and gives freed memory back
/// to the kernel, so the unit's MemoryMax is a backstop and not the policy. Freed memory is also
/// given back once the server is quiet again, so what an attack took returns after it.
final class MemoryBound: @unchecked Sendable {
    let limit: Int
    let registry: ConnectionRegistry
    let refusals: SharedRefusalLog
    /// Resident memory just after memory was last given back while quiet.
    private var floor = 0

    init(limit: Int, registry: ConnectionRegistry, refusals: SharedRefusalLog) {
        self.limit = limit
        self.registry = registry
        self.refusals = refusals
    }

    /// One check (every second, on an event loop; one at a time).
    func check() {
        guard let rss = (try? ResidentMemory.bytes()).map({ Int($0) }) else { return }
        if rss > limit {
            // Half of what is open (at least one), then the memory freed goes back.
            let closed = registry.shed(max(registry.open / 2, 1))
            ResidentMemory.giveBack()
            refusals.refused(
                "any address",
                "alarm-web's memory (\(rss >> 20) MiB) is over web_memory_limit (\(limit >> 20) MiB): connections closed to make room",
                detail: "\(closed) closed")
            floor = 0
            return
        }
        // Quiet (few connections open) and grown since memory was last given back: what the
        // busy spell took goes back.
        if registry.open * 8 < max(registry.limits.total, 8), rss > floor + 2 << 20 {
            ResidentMemory.giveBack()
            floor = (try? ResidentMemory.bytes()).map { Int($0) } ?? rss
        }
    }
}
