"""The lighter drawing options the live panels use: no legend, no hit-rate twin axis, a subset of policies."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from labcore.batching import fit_sgmv  # noqa: E402
from labcore.plots import plot_break_even, plot_canary_log, plot_sim_timeline  # noqa: E402
from labcore.sim import onboarding_timeline  # noqa: E402
from labcore.sim.scenarios.affinity import affinity_runs  # noqa: E402
from labcore.sim.scenarios.canary import canary_log  # noqa: E402


def test_affinity_runs_can_run_a_subset_of_policies():
    runs = affinity_runs(requests=600, warmup=100, policies=("round-robin", "rendezvous"))
    assert list(runs) == ["round-robin", "rendezvous"]
    assert runs["rendezvous"].hit_rate > runs["round-robin"].hit_rate


def test_sim_timeline_without_hit_rate_draws_one_axes():
    result = onboarding_timeline(requests=2_000)
    with_rate = plot_sim_timeline(result, hit_rate=True)
    without = plot_sim_timeline(result, hit_rate=False)
    assert len(with_rate.axes) == 2 and len(without.axes) == 1
    plt.close("all")


def test_legend_false_leaves_the_legend_out():
    fig = plot_break_even(fit_sgmv(), rank=16, distinct=32, legend=False)
    assert fig.axes[0].get_legend() is None
    assert plot_break_even(fit_sgmv(), rank=16, distinct=32).axes[0].get_legend() is not None
    log = canary_log(requests=8_000)
    assert plot_canary_log(log, requests_max=8_000, legend=False).axes[0].get_legend() is None
    plt.close("all")
