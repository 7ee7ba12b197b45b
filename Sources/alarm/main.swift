import AlarmCLI

AlarmCommand.start()
