from client_kivy.app import main

main()
