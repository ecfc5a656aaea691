from skillopt_sleep.cli.entry import main

main()
