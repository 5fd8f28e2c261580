// Filled by the C-family code generator (issue 5).
