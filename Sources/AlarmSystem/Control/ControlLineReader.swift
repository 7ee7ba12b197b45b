import Glibc

/// Splits the bytes arriving on the control FIFO into lines and parses each into a
/// `ControlCommand`, with memory bounded whatever the writers send.
///
/// At most `ControlCommand.maximumLineLength` bytes of an unfinished line are kept. A longer line
/// is discarded whole, up to and including its newline, and reported once as `.invalid` with the
/// number of bytes dropped; so a 1 MiB line costs 513 bytes of memory, not 1 MiB. Bytes from
/// writers that closed mid-line stay buffered and join the next writer's line, which then fails to
/// parse and is reported as `.invalid`: a FIFO carries no writer boundaries, and the daemon keeps
/// a writer end open (see `ControlFIFO`), so it never sees end-of-file to cut the fragment off.
public struct ControlLineReader: Sendable {
    private var pending: [UInt8] = []
    /// Bytes dropped so far of an overlong line, or `nil` when not inside one.
    private var discarded: Int?

    public init() {
        pending.reserveCapacity(ControlCommand.maximumLineLength + 1)
    }

    /// Bytes held for an unfinished line (never more than `maximumLineLength`).
    public var bufferedByteCount: Int { pending.count }

    /// Consumes bytes and returns the commands of every line they complete, in order.
    public mutating func consume(_ bytes: UnsafeRawBufferPointer) -> [ControlCommand] {
        var commands: [ControlCommand] = []
        guard var start = bytes.baseAddress, bytes.count > 0 else { return commands }
        var left = bytes.count
        while left > 0 {
            let newline = memchr(start, Int32(UInt8(ascii: "\n")), left)
            let length = newline.map { UnsafeRawPointer($0) - start } ?? left
            append(UnsafeRawBufferPointer(start: start, count: length))
            guard newline != nil else { break }
            if let dropped = discarded {
                commands.append(
                    .invalid(
                        reason:
                            "line longer than \(ControlCommand.maximumLineLength) bytes discarded (\(dropped) bytes)"))
            } else if let command = ControlCommand(line: pending) {
                commands.append(command)
            }
            pending.removeAll(keepingCapacity: true)
            discarded = nil
            start += length + 1
            left -= length + 1
        }
        return commands
    }

    /// Convenience for tests and callers holding an array.
    public mutating func consume(_ bytes: [UInt8]) -> [ControlCommand] {
        bytes.withUnsafeBytes { consume($0) }
    }

    private mutating func append(_ chunk: UnsafeRawBufferPointer) {
        if let dropped = discarded {
            discarded = dropped + chunk.count
        } else if pending.count + chunk.count > ControlCommand.maximumLineLength {
            discarded = pending.count + chunk.count
            pending.removeAll(keepingCapacity: true)
        } else {
            pending.append(contentsOf: chunk)
        }
    }
}
