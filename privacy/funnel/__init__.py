"""The privacy funnel with LDP and LIP guarantees (Lopuhaä-Zwakenberg, Tong, Škorić).

A data aggregator releases ``Y = Q(X)`` for each user's data ``X`` and wants to
maximise the utility ``I(X; Y)`` while protecting a correlated secret ``S`` (Problem
2 of the paper). Given the joint distribution ``p_sx`` of shape ``(c, a)`` (rows: the
secret ``s``, columns: the data ``x``), this module provides

- the privacy levels w.r.t. S: :func:`ldp_epsilon` (Definition 1),
  :func:`lip_epsilon` (Definition 2) and :func:`srlip_epsilon` (Definition 3), and the
  utility :func:`mutual_information`;
- the optimal mechanisms :func:`optimal_ldp` (a linear program over the extreme rays
  of an ``a``-dimensional cone, proven equivalent to Theorem 2; much faster than its
  vertex enumeration) and :func:`optimal_lip` (Theorem 3: vertex enumeration of the
  polytope Delta with cddlib, then the LP (17) with HiGHS). For large alphabets
  (``a > 8`` by default, ``method="colgen"``) both solve the same LP by column
  generation with a branch-and-bound optimality certificate;
- the Theorem 4 product protocol for multi-attribute data, :func:`srlip_product`
  (with :func:`srlip_components` and :func:`product_mechanism`);
- the explicit protocols :func:`grr`, :func:`oue` and :func:`conditional_reporting`
  (Algorithm 1; it takes the pair (s, x) as input), each calibrated so that its LIP
  w.r.t. S equals the target ``eps`` (Eqs. 29, 32, 33 solved for ``alpha``);
- :func:`adult_joint` to build ``p_sx`` from the UCI Adult records (Figure 5).

The package has one module per part: :mod:`~privacy.funnel.measures` (the privacy
levels and the utility), :mod:`~privacy.funnel.optimal` (optimal LDP and LIP),
:mod:`~privacy.funnel.colgen` (column generation with its certificate),
:mod:`~privacy.funnel.polytope` (cddlib vertex and ray enumeration),
:mod:`~privacy.funnel.srlip` (Theorem 4), :mod:`~privacy.funnel.protocols` (GRR, OUE,
CR), :mod:`~privacy.funnel.data` (Adult joints) and :mod:`~privacy.funnel.checks`
(argument checks).

Every mechanism is returned as a :class:`privacy.Mechanism`. Logarithms are natural
(nats).

Examples
--------
>>> import numpy as np
>>> from anonspread.privacy import funnel
>>> p_sx = np.random.default_rng(7).dirichlet(np.ones(8)).reshape(2, 4)
>>> lip, ldp = funnel.optimal_lip(p_sx, 1.0), funnel.optimal_ldp(p_sx, 1.0)
>>> p_x = p_sx.sum(axis=0)
>>> bool(funnel.mutual_information(ldp, p_x) <= funnel.mutual_information(lip, p_x) + 1e-9)
True
"""

from anonspread.privacy.funnel.data import ADULT_DATA, ADULT_SECRETS, EmpiricalJoint, adult_joint
from anonspread.privacy.funnel.measures import (
    ldp_epsilon,
    lip_epsilon,
    mutual_information,
    srlip_epsilon,
)
from anonspread.privacy.funnel.optimal import (  # the paper's Theorem 2 kept as the reference
    _optimal_ldp_vertex_enumeration,  # noqa: F401
    optimal_ldp,
    optimal_lip,
)
from anonspread.privacy.funnel.protocols import (
    conditional_reporting,
    cr_alpha,
    cr_lip,
    grr,
    grr_alpha,
    grr_lip,
    oue,
    oue_alpha,
    oue_lip,
)
from anonspread.privacy.funnel.srlip import product_mechanism, srlip_components, srlip_product

__all__ = [
    "ADULT_DATA",
    "ADULT_SECRETS",
    "EmpiricalJoint",
    "adult_joint",
    "conditional_reporting",
    "cr_alpha",
    "cr_lip",
    "grr",
    "grr_alpha",
    "grr_lip",
    "ldp_epsilon",
    "lip_epsilon",
    "mutual_information",
    "optimal_ldp",
    "optimal_lip",
    "oue",
    "oue_alpha",
    "oue_lip",
    "product_mechanism",
    "srlip_components",
    "srlip_epsilon",
    "srlip_product",
]
