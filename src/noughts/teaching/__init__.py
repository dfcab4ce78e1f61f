"""Teaching tools: searches written to be read, and traces that show them deciding."""
