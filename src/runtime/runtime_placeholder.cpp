// Filled by the runtime.
