import Foundation

// The daemon is built by issue #4. Until then it says so instead of pretending to run.
FileHandle.standardError.write(Data("<3>alarmd: the daemon is not built yet (see issue #4)\n".utf8))
exit(70)
