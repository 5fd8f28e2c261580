// Filled by the LLVM code generator.
