//! Unit tests of the executor on small hand-written listings.
