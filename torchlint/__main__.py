from torchlint.cli import main

main(prog_name="torchlint")
