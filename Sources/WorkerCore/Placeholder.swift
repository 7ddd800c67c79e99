// Placeholder until the target gets real code.
