// servebench: benchmarks AI-model inference servers. main() only dispatches.
int main() { return 0; }
