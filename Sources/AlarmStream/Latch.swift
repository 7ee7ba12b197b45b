import AlarmSystem

/// Opened once by `open()`; `wait()` returns once it is (as a `DispatchSemaphore(value: 0)` with
/// one signal and one wait).
final class Latch: @unchecked Sendable {
    private let condition = Condition()
    private var isOpen = false

    func open() {
        condition.lock()
        isOpen = true
        condition.broadcast()
        condition.unlock()
    }

    func wait() {
        condition.lock()
        while !isOpen { condition.wait() }
        condition.unlock()
    }
}
