from notarai_rs import main

main()
