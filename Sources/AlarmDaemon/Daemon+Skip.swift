import AlarmCore
import AlarmState
import FoundationEssentials

extension Daemon {
    /// The FIFO's `skip` (issue #43, Home Assistant's "Skip next" button): the next alarm's next
    /// occurrence does not ring, as `alarm skip ID` for the alarm the status names next. The
    /// store is read first, so the alarm skipped is the one that would really ring next (pauses,
    /// holidays and skips applied). Pressed again it skips the ring that is next then.
    func skipNext() {
        reload(reason: nil)
        let now = Date()
        guard let next = engine.nextRing(now: now, zone: zone) else {
            logger.warning("skip ignored: no alarm will ring")
            return
        }
        do {
            var skipped = false
            try store.update { list in
                guard let i = list.firstIndex(where: { $0.id == next.id }) else { return }
                if list[i].skipNext {
                    // Already skipping one: the next ring is the one after it; skipping a second
                    // occurrence is not what `skip_next` can say.
                    return
                }
                list[i].skipNext = true
                skipped = true
            }
            if skipped {
                logger.notice("skip: '\(next.id)' skips its ring at \(RFC3339.format(next.at, in: zone))")
            } else {
                logger.warning(
                    "skip ignored: '\(next.id)' already skips one occurrence; its next ring at \(RFC3339.format(next.at, in: zone)) stays"
                )
            }
        } catch {
            logger.error("skip failed: \(error)")
            return
        }
        reload(reason: "skip command")
    }
}
