"""PyTorch: a hooke rollout as a differentiable function of torch tensors.

:func:`rollout` runs a scene for a number of steps and returns its trajectory as tensors;
going back, PyTorch's autograd calls hooke's tape (reverse mode through the rollout,
checkpointed, the implicit integrators by the adjoint method), so a loss written in torch
of any state of the trajectory trains what went in:

* the scene's parameters given as tensors by scene path (``springs[*].k``, ``.c``,
  ``.rest``, ``.cs``, ``.cd``, ``nodes[*].mass``, ``.x``, ``.v``: :data:`PATHS`);
* an open-loop actuation, one row of channel values a step;
* a controller in the loop: a ``torch.nn.Module`` called before every step with the
  state the step starts from, ``u = policy(x, v)`` (positions and velocities as
  ``(nodes, 3)`` float64 tensors), whose weights get their gradient through every step
  it drove (hooke gives ∂L/∂u of each step; torch takes it back through the network to
  its weights and to the state it read). A controller with a memory (a filter, a
  recurrent network) defines ``initial_state()`` and is called ``u, h = policy(x, v, h)``:
  the gradient goes back through its state from step to step too.

::

    import torch, hooke
    from hooke.torch import rollout

    k = torch.full((scene.springs,), 80.0, dtype=torch.float64, requires_grad=True)
    xs, vs = rollout(scene, 200, params={"springs[*].k": k}, policy=net)
    loss = -xs[-1, head, 0]          # the head's final x, to be pushed forward
    loss.backward()                  # k.grad and net's weights' .grad filled

torch is an optional dependency: ``pip install "hooke[torch]"``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

try:
    import torch
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError(
        'hooke.torch needs PyTorch: pip install "hooke[torch]" (or pip install torch)'
    ) from e

from . import gradients
from ._native import Scene, Simulation

#: The scene paths :func:`rollout` takes as parameters.
PATHS = gradients.PATHS + gradients.STABLE_PATHS


@dataclass
class _Plan:
    """What a rollout runs, besides its tensors."""

    scene: Scene
    steps: int
    paths: tuple[str, ...]
    policy: Any
    n_policy: int  # how many of the tensors are the policy's weights
    open_loop: bool  # whether an actuation tensor is given


def rollout(
    scene: Scene,
    steps: int,
    params: Mapping[str, torch.Tensor] | None = None,
    actuation: torch.Tensor | None = None,
    policy: torch.nn.Module | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Runs ``scene`` for ``steps`` steps; returns the positions and velocities of every
    state, the initial one first: two float64 tensors of shape ``(steps + 1, nodes, 3)``
    [m], [m/s], differentiable with respect to ``params`` (scene path → tensor of the
    path's shape: ``(springs,)``, ``(nodes,)`` or ``(nodes, 3)``), the open-loop
    ``actuation`` (``(steps, channels)``) and the weights of ``policy``, a controller
    called before each step as ``policy(x, v)`` → the step's channel values. Give either
    ``actuation`` or ``policy``, not both. A scene or input the gradient cannot go
    through raises :class:`hooke.NotDifferentiableError` naming it."""
    params = dict(params or {})
    for path in params:
        if path not in PATHS:
            raise ValueError(f"params: {path!r} is not one of {', '.join(PATHS)}")
    if actuation is not None and policy is not None:
        raise ValueError("give either actuation (open loop) or policy (closed loop), not both")
    if steps < 1:
        raise ValueError(f"steps: expected at least 1, got {steps}")
    weights = list(policy.parameters()) if policy is not None else []
    plan = _Plan(scene, int(steps), tuple(params), policy, len(weights), actuation is not None)
    tensors = list(params.values()) + weights + ([actuation] if actuation is not None else [])
    return _Rollout.apply(plan, *tensors)


class _Rollout(torch.autograd.Function):
    """The rollout as one autograd node: forward records it on a tape, backward goes back
    through the tape and, for a controller in the loop, through the controller at every
    step (its graphs kept from the forward pass)."""

    @staticmethod
    def forward(ctx: Any, plan: _Plan, *tensors: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        values = tensors[: len(plan.paths)]
        sim = Simulation(_scene_with(plan.scene, plan.paths, values))
        actuation = tensors[-1].detach().cpu().numpy() if plan.open_loop else None
        xs, vs, decisions = [sim.positions.copy()], [sim.velocities.copy()], []
        h0 = h = _initial_state(plan.policy)
        with sim.tape() as tape:
            for step in range(plan.steps):
                if plan.policy is not None:
                    decisions.append(_decide(plan.policy, sim, h))
                    h = decisions[-1].h_out
                    sim.set_actuation(decisions[-1].u.detach().cpu().numpy())
                elif actuation is not None:
                    sim.set_actuation(actuation[step])
                sim.step(1)
                xs.append(sim.positions.copy())
                vs.append(sim.velocities.copy())
        ctx.plan, ctx.tape, ctx.decisions, ctx.h0 = plan, tape, decisions, h0
        ctx.shapes = [t.shape for t in tensors]
        ctx.dtypes = [t.dtype for t in tensors]
        as_tensor = lambda a: torch.from_numpy(np.asarray(a, dtype=np.float64))  # noqa: E731
        return as_tensor(np.stack(xs)), as_tensor(np.stack(vs))

    @staticmethod
    def backward(ctx: Any, gxs: torch.Tensor, gvs: torch.Tensor) -> tuple[Any, ...]:
        plan, tape, decisions = ctx.plan, ctx.tape, ctx.decisions
        gxs, gvs = _numpy(gxs), _numpy(gvs)
        weights = [torch.zeros(s, dtype=d) for s, d in zip(ctx.shapes, ctx.dtypes)][
            len(plan.paths) : len(plan.paths) + plan.n_policy
        ]
        through = _Through(plan.policy, decisions, weights)

        def per_step(step: int, x: np.ndarray, v: np.ndarray, du: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            dx, dv = gxs[step].copy(), gvs[step].copy()
            through.add(step, du, dx, dv)
            return dx, dv

        tape.backward(per_step=per_step)
        # The controller's decision before the first step read the initial state.
        dx0, dv0 = gxs[0].copy(), gvs[0].copy()
        if plan.policy is not None:
            through.add(0, np.asarray(tape.grad("control.actuation"))[0], dx0, dv0)
            through.start(ctx.h0)
        grads: list[Any] = [None]
        for path, shape, dtype in zip(plan.paths, ctx.shapes, ctx.dtypes):
            g = np.asarray(tape.grad(path), dtype=np.float64)
            g = g + {"nodes[*].x": dx0, "nodes[*].v": dv0}.get(path, 0.0)
            grads.append(torch.from_numpy(g).reshape(shape).to(dtype))
        grads.extend(through.weights)
        if plan.open_loop:
            g = np.asarray(tape.grad("control.actuation"), dtype=np.float64)
            grads.append(torch.from_numpy(g).reshape(ctx.shapes[-1]).to(ctx.dtypes[-1]))
        return tuple(grads)


@dataclass
class _Decision:
    """One step's decision with its graph: the state read (float64 leaves), the
    controller's memory before (a leaf) and after, and the channel values."""

    x: torch.Tensor
    v: torch.Tensor
    h_in: torch.Tensor | None
    h_out: torch.Tensor | None
    u: torch.Tensor


class _Through:
    """Going back through the controller: the graph of each step's decision
    u = π(x, v) (or u, h' = π(x, v, h)), kept from the forward pass, takes ∂L/∂u of that
    step (and ∂L/∂h' from the steps after) back to the state it read, to the memory it
    started from and to the controller's weights. Called for the states last to first."""

    def __init__(self, policy: Any, decisions: list[_Decision], weights: list[torch.Tensor]):
        self.params = list(policy.parameters()) if policy is not None else []
        self.decisions = decisions
        self.weights = weights
        self.dh: torch.Tensor | None = None  # ∂L/∂h' of the decision gone back through last

    def add(self, step: int, du: np.ndarray, dx: np.ndarray, dv: np.ndarray) -> None:
        """Adds (∂π/∂x)ᵀ·du and (∂π/∂v)ᵀ·du of the decision at state ``step`` to ``dx``,
        ``dv``, and (∂π/∂w)ᵀ·du to the weights' gradients; nothing after the last step."""
        if step >= len(self.decisions):
            return
        d = self.decisions[step]
        du = np.asarray(du, dtype=np.float64) if len(du) else np.zeros(d.u.shape)  # no channels: u moves nothing
        du_t = torch.from_numpy(du).to(d.u.dtype).reshape(d.u.shape)
        outputs, grads, inputs = [d.u], [du_t], [d.x, d.v, *self.params]
        if d.h_out is not None:
            dh = self.dh if self.dh is not None else torch.zeros_like(d.h_out)
            outputs, grads, inputs = outputs + [d.h_out], grads + [dh], inputs + [d.h_in]
        got = torch.autograd.grad(outputs, inputs, grads, allow_unused=True)
        for out, g in ((dx, got[0]), (dv, got[1])):
            if g is not None:
                out += g.detach().cpu().numpy()
        for acc, g in zip(self.weights, got[2 : 2 + len(self.params)]):
            if g is not None:
                acc += g.detach().to(acc.dtype)
        if d.h_out is not None:
            self.dh = got[-1] if got[-1] is not None else torch.zeros_like(d.h_in)

    def start(self, h0: torch.Tensor | None) -> None:
        """Takes ∂L/∂h₀ back to the weights the initial memory was made from."""
        if h0 is None or self.dh is None or not h0.requires_grad:
            return
        got = torch.autograd.grad(h0, self.params, self.dh, allow_unused=True)
        for acc, g in zip(self.weights, got):
            if g is not None:
                acc += g.detach().to(acc.dtype)


def _decide(policy: Any, sim: Simulation, h: torch.Tensor | None) -> _Decision:
    """The controller's decision at the state ``sim`` is in, from its memory ``h``
    (``None`` for one without), with the graph kept."""
    x = torch.tensor(sim.positions, dtype=torch.float64, requires_grad=True)
    v = torch.tensor(sim.velocities, dtype=torch.float64, requires_grad=True)
    h_in = None if h is None else h.detach().requires_grad_()
    with torch.enable_grad():
        out = policy(x, v) if h_in is None else policy(x, v, h_in)
    u, h_out = (out, None) if h_in is None else out
    if not isinstance(u, torch.Tensor) or u.dim() != 1:
        raise ValueError(f"policy: expected a 1-D tensor of channel values, got {u!r}")
    return _Decision(x, v, h_in, h_out, u)


def _initial_state(policy: Any) -> torch.Tensor | None:
    """A controller's initial memory, with its graph (``None`` for one without)."""
    if policy is None or not hasattr(policy, "initial_state"):
        return None
    with torch.enable_grad():
        return policy.initial_state()


def _scene_with(scene: Scene, paths: tuple[str, ...], values: tuple[torch.Tensor, ...]) -> Scene:
    """``scene`` with each path set to its tensor's values."""
    if not paths:
        return scene
    doc = json.loads(scene.to_json())
    for path, value in zip(paths, values):
        expected = gradients._values(doc, path).shape
        got = np.asarray(value.detach().cpu().numpy(), dtype=np.float64)
        if got.shape != expected:
            raise ValueError(f"params[{path!r}]: shape {got.shape} does not match the scene's {expected}")
        doc = gradients._shifted(doc, path, got)
    return Scene.from_json(json.dumps(doc))


def _numpy(t: torch.Tensor) -> np.ndarray:
    return t.detach().cpu().numpy().astype(np.float64)
