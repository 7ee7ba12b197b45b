import AlarmAudio

extension Configuration {
    /// The sound directories in lookup order: the configured ones, else the installed sounds and
    /// then `sounds/` in the state directory (the seeds' main bundle, then `Library/Sounds`).
    public var soundLibrary: SoundLibrary {
        if let dirs = soundsDirs { return SoundLibrary(directories: dirs) }
        return SoundLibrary(
            directories: [SoundLibrary.installedSoundsDirectory(), stateDir + "/sounds"].compactMap { $0 })
    }
}

extension Configuration {
    /// Where `alarm sounds cut` writes the clips people make: the first configured sound
    /// directory, else `sounds/` in the state directory (the installed sounds are the package's).
    public var userSoundsDirectory: String { soundsDirs?.first ?? stateDir + "/sounds" }
}
