%% The two EUnit assertions the tests use, defined here because eunit.hrl is in Debian's
%% erlang-dev, which erlang-nox (all this implementation installs) does not pull in; the runner
%% itself is in erlang-eunit, which it does. The checks are in cb_test_helpers.
-define(assertEqual(Want, Expr), cb_test_helpers:assert_equal(Want, Expr, ??Expr, ?LINE)).
-define(assert(Expr), cb_test_helpers:assert_true(Expr, ??Expr, ?LINE)).
