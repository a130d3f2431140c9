"""Speed measured as ratios against a peer timed in the same run; ``python -m benchmarks.<name> --save`` records one."""
