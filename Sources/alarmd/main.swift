import AlarmdCommand

Alarmd.main()
