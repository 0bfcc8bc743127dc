"""What files hold: byte streams described by how they were made (labsim.content.model),
so that any range of a file's bytes can be produced on demand, deterministically, without
holding the file."""
