%% EUnit tests of philosophers (cb_philosophers) at small sizes, against values computed here: the
%% closed forms n*m meals, 2*n*m fork uses and no overlap, and every philosopher's own count m (the
%% metrics min_meals and max_meals). Also the fork process on its own (a waiting take is granted on
%% the release, a release by anyone but the holder counts an overlap), the processes a run spawns
%% and that none of them outlives it. Run with `make test`.
-module(cb_philosophers_tests).

%% Exported by hand, with the assertions of cb_asserts.hrl (no eunit.hrl in erlang-nox).
-export([ordered_test_/0, fork_queues_takes_test/0, fork_counts_foreign_release_test/0,
         spawn_count_test_/0, run_leaves_no_process_test/0]).

-include("cb_asserts.hrl").

fmt(Fmt, Args) -> lists:flatten(io_lib:format(Fmt, Args)).

%% The smallest table, a few more, the spec's test size; m = 0 (nothing to eat), 1 and more.
sizes() -> [{N, M} || N <- [2, 3, 5, 8], M <- [0, 1, 2, 7, 200]] ++ [{33, 20}].

ordered_test_() ->
    [{fmt("philosophers ordered n=~b m=~b", [N, M]),
      fun() ->
              {Ns, Result, Metrics} = cb_test_helpers:isolated(fun() -> cb_philosophers:ordered(N, M) end),
              ?assertEqual(true, is_integer(Ns) andalso Ns >= 0),
              ?assertEqual(fmt("meals=~b fork_uses=~b overlaps=~b", [N * M, 2 * N * M, 0]), Result),
              ?assertEqual([{min_meals, M}, {max_meals, M}], Metrics)
      end}
     || {N, M} <- sizes()].

%% A take while the fork is held waits, and is granted when the holder releases; the release
%% counts one use, and the fork reports only once it is back on the table.
fork_queues_takes_test() ->
    cb_test_helpers:isolated(
      fun() ->
              Fork = cb_philosophers:start_fork(),
              Self = self(),
              Fork ! {take, Self},
              ?assertEqual(ok, receive {granted, Fork} -> ok after 1000 -> timeout end),
              Other = spawn_link(fun() ->
                                         Fork ! {take, self()},
                                         receive {granted, Fork} -> Self ! {other_granted, self()} end,
                                         Fork ! {release, self()}
                                 end),
              ?assertEqual(waiting, receive {other_granted, Other} -> granted after 100 -> waiting end),
              Fork ! {release, Self},
              ?assertEqual(ok, receive {other_granted, Other} -> ok after 1000 -> timeout end),
              ?assertEqual({2, 0}, cb_philosophers:fork_counts(Fork))
      end).

%% The overlap detector: a release by a philosopher that does not hold the fork is a broken
%% protocol and counts one; it neither frees the fork nor counts a use.
fork_counts_foreign_release_test() ->
    cb_test_helpers:isolated(
      fun() ->
              Fork = cb_philosophers:start_fork(),
              Fork ! {take, self()},
              receive {granted, Fork} -> ok end,
              Stranger = spawn(fun() -> ok end),
              Fork ! {release, Stranger},
              Fork ! {release, self()},
              ?assertEqual({1, 1}, cb_philosophers:fork_counts(Fork))
      end).

%% One process per fork and one per philosopher.
spawn_count_test_() ->
    [{fmt("philosophers n=~b spawns ~b", [N, 2 * N]),
      fun() -> ?assertEqual(2 * N, cb_test_helpers:spawn_count(fun() -> cb_philosophers:ordered(N, 3) end)) end}
     || N <- [2, 5, 40]].

%% After a run returns, its forks have reported and ended and its philosophers have sent their
%% counts and ended (or are about to): polled here, the test's, for up to a second.
run_leaves_no_process_test() ->
    Before = erlang:system_info(process_count),
    {_, Result, _} = cb_test_helpers:isolated(fun() -> cb_philosophers:ordered(100, 50) end),
    ?assertEqual(fmt("meals=~b fork_uses=~b overlaps=~b", [5000, 10000, 0]), Result),
    ?assertEqual(true, cb_test_helpers:settles(Before, 100)).
