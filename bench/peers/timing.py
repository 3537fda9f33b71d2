"""The peers' shared timing: warm up, size batches of about 1/20 of `seconds`, and time
batches (at least 5) until `seconds` have passed."""

import statistics
import time


def spring_updates_per_second(step, sync, springs: int, seconds: float) -> tuple[float, int]:
    """Median spring-updates per second of `step()` over batches (`sync()` waits for the
    device), and the number of batches."""
    for _ in range(20):
        step()
    sync()
    t0, n = time.perf_counter(), 0
    while time.perf_counter() - t0 < 0.3:
        step()
        n += 1
    sync()
    batch = max(1, int(n / (time.perf_counter() - t0) * seconds / 20))
    rates = []
    start = time.perf_counter()
    while time.perf_counter() - start < seconds or len(rates) < 5:
        t = time.perf_counter()
        for _ in range(batch):
            step()
        sync()
        rates.append(batch * springs / (time.perf_counter() - t))
    return statistics.median(rates), len(rates)
