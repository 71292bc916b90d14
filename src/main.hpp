#pragma once
// The program: the composition root creates the adapters and runs the CLI.

/// Run perfsweep with `argc`/`argv` as main() would and return its exit status.
int perfsweep_main(int argc, char** argv);
