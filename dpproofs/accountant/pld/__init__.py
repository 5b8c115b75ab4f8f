"""Tight accounting by privacy-loss distributions: ``discretise`` (one step's certified
discretisation and the FFT composition with its error bounds) and ``accountant``
(:class:`PLDAccountant`, its bracket search and its calibration)."""
