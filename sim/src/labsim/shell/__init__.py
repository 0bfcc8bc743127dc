"""The command layer: parses real command lines and answers as the real tools do."""
