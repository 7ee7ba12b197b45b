import CSndfile
#if canImport(Glibc)
import Glibc
#endif

/// What libsndfile reads: the sound file's bytes with the scanner's patches laid over them (true
/// sizes where the writer left placeholders, ALAC flags ffmpeg leaves out). The file on disk is
/// never changed; the view is read-only and lives for one decode.
///
/// libsndfile reads through `sf_open_virtual`, whose callbacks find this object through their
/// `user_data` pointer; `open` keeps the view alive until the handle is closed.
final class SndfileView {
    private let file: SoundFile
    private let patches: [ContainerLayout.Patch]
    private var position = 0

    init(_ file: SoundFile, patches: [ContainerLayout.Patch]) {
        self.file = file
        self.patches = patches
    }

    /// Up to `count` bytes from the current position, patched; advances the position.
    func read(into buffer: UnsafeMutableRawPointer, count: Int) -> Int {
        let bytes = file.read(at: position, count: count)
        bytes.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
        let start = position
        let end = position + bytes.count
        for p in patches where p.offset < end && p.offset + p.bytes.count > start {
            for (i, b) in p.bytes.enumerated() where p.offset + i >= start && p.offset + i < end {
                buffer.storeBytes(of: b, toByteOffset: p.offset + i - start, as: UInt8.self)
            }
        }
        position = end
        return bytes.count
    }

    /// The new position, or -1 when it would be negative. The corresponding C function is `lseek`.
    func seek(_ offset: Int, whence: Int32) -> Int {
        guard let target = Self.seekTarget(offset, whence: whence, position: position, length: file.size) else {
            return -1
        }
        position = target
        return position
    }

    /// Where `lseek` semantics put a virtual file's position (libsndfile's `seek` callback, for
    /// this view and for `MemoryFile`): nil for an unknown `whence`, a negative target or an
    /// overflow.
    static func seekTarget(_ offset: Int, whence: Int32, position: Int, length: Int) -> Int? {
        let base: Int
        switch whence {
        case SEEK_SET: base = 0
        case SEEK_CUR: base = position
        case SEEK_END: base = length
        default: return nil
        }
        let (target, overflow) = base.addingReportingOverflow(offset)
        guard !overflow, target >= 0 else { return nil }
        return target
    }

    var length: Int { file.size }
    var tell: Int { position }

    /// A libsndfile handle reading this view; `close` it with `sf_close`, then release `retained`.
    /// Nil with libsndfile's error code and text when it will not open.
    func open(_ info: inout SF_INFO) -> (handle: OpaquePointer, retained: Unmanaged<SndfileView>)? {
        var io = SF_VIRTUAL_IO(
            get_filelen: { sf_count_t(SndfileView.from($0).length) },
            seek: { offset, whence, me in sf_count_t(SndfileView.from(me).seek(Int(offset), whence: whence)) },
            read: { buffer, count, me in
                guard let buffer, count > 0 else { return 0 }
                return sf_count_t(SndfileView.from(me).read(into: buffer, count: Int(count)))
            },
            write: { _, _, _ in 0 },
            tell: { sf_count_t(SndfileView.from($0).tell) })
        let retained = Unmanaged.passRetained(self)
        guard let handle = sf_open_virtual(&io, Int32(SFM_READ), &info, retained.toOpaque()) else {
            retained.release()
            return nil
        }
        return (handle, retained)
    }

    private static func from(_ pointer: UnsafeMutableRawPointer?) -> SndfileView {
        Unmanaged<SndfileView>.fromOpaque(pointer!).takeUnretainedValue()
    }
}
