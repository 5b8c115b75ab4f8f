"""Tight accounting by privacy-loss distributions: ``discretise`` (one step's certified
discretisation into upper and lower discrete PLDs), ``compose`` (their FFT composition with its
error bounds) and ``accountant`` (:class:`PLDAccountant`, its bracket search and its calibration).
Imports math and mechanisms (and the RDP accountant, for its fallback) only."""
