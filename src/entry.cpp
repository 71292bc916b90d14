// The executable's entry point; everything else is in perfsweep_main (src/main.cpp).

#include "main.hpp"

int main(int argc, char** argv) {
    return perfsweep_main(argc, argv);
}
