import Foundation

/// The machine's processes as tests look for a program's children: from /proc (this kernel has
/// no `children` file).
public enum ProcessTable {
    /// /proc, reached as /proc/self/root/proc: natively the same directory. Under user-mode qemu
    /// (the arm64 suite, QEMU_LD_PREFIX set to the target root) an absolute path is looked up in
    /// the target root first, and a plain "/proc" is that root's empty mount point: the list came
    /// back empty and every child looked gone. /proc/self has no counterpart there.
    static let directory = "/proc/self/root/proc"

    /// The processes whose parent is `pid` and that have not ended (zombies left out).
    public static func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return entries.compactMap { Int32($0) }.filter { child in
            guard let stat = try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8),
                let close = stat.range(of: ")", options: .backwards)
            else { return false }
            // After "pid (comm)": state, then the parent's pid. A zombie (Z) has ended.
            let fields = stat[close.upperBound...].split(separator: " ")
            return fields.count > 1 && fields[0] != "Z" && Int32(fields[1]) == pid
        }
    }
}
