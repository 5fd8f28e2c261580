// tackc: the Tack command line (the commands are in cli.cpp and the files it names).
#include "tackc.hpp"

int main(int argc, char** argv) {
    return tack::tackc::run(argc, argv);
}
