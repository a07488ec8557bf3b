// fabemu: the command. Everything lives in control/cli so tests can call it.
#include "control/cli/cli.h"

int main(int argc, char** argv) { return fabemu::fabemu_main(argc, argv); }
