"""Where the time of one PLD call goes (issue 22): cProfile of ``PLDAccountant().epsilon_bounds``.

    PYTHONPATH=. python benchmarks/pld_profile.py "1e-3,0.8,1e4,1e-5" ... > benchmarks/pld_profile_DATE.txt

Each argument is ``q,sigma,T,delta`` of a Poisson-subsampled Gaussian under add/remove (rows of
benchmarks/pld_peer_grid.py). After one small warm-up call, every configuration is profiled in this
process; printed: the bracket and seconds per configuration, then the functions by total own time
over all of them (the 25 largest). Not a unit test; profiles are noisy on a shared machine.
"""

import cProfile
import io
import pstats
import sys
import time

import dpproofs as dp


def main(specs):
    dp.PLDAccountant().compose(dp.SampledGaussian(0.02, 2.0), 10).epsilon_bounds(1e-5)  # warm-up
    profile = cProfile.Profile()
    print(f"# python benchmarks/pld_profile.py {' '.join(specs)}  ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})")
    total = 0.0
    for spec in specs:
        q, sigma, steps, delta = (float(x) for x in spec.split(","))
        started = time.perf_counter()
        profile.enable()
        bounds = dp.PLDAccountant().compose(dp.SampledGaussian(q, sigma), int(steps)).epsilon_bounds(delta)
        profile.disable()
        seconds = time.perf_counter() - started
        total += seconds
        print(f"{spec} | {bounds.lower:.7g} {bounds.upper:.7g} {bounds.source} | {seconds:.2f} s", flush=True)
    print(f"# total {total:.2f} s (under the profiler)")
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(25)
    print("\n".join(line for line in out.getvalue().splitlines() if line.strip()))


if __name__ == "__main__":
    main(sys.argv[1:] or ["1e-3,0.8,1e4,1e-5", "1e-4,1.0,1000,1e-12", "2.4e-4,0.658,3078,1.6e-11"])
