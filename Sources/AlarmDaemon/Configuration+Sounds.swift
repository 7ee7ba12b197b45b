import AlarmAudio

extension Configuration {
    /// The sound directories in lookup order: the configured ones, else the installed sounds and
    /// then `sounds/` in the state directory (the seeds' main bundle, then `Library/Sounds`).
    public var soundLibrary: SoundLibrary {
        if let dirs = soundsDirs { return SoundLibrary(directories: dirs) }
        return SoundLibrary(directories: [SoundLibrary.installedSoundsDirectory(), stateDir + "/sounds"].compactMap { $0 })
    }
}
