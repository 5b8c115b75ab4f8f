"""Claims about the shipped accountants (ids ``accountant.*``): they call the public classes exactly as a user does."""
