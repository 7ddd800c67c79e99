// The seeded generator the tests draw reproducible random input from (the product's own SplitMix64).
@_exported import SeededRandom
