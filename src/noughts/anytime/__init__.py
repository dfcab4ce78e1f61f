"""Play for boards too large to solve on the spot: heuristic search, threats, proofs."""
