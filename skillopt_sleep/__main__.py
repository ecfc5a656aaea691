from skillopt_sleep.cli.app import main

main()
