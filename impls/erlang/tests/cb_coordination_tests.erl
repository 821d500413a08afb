%% EUnit tests of the coordination kernels (cb_coordination: mutex, prodcons, condition,
%% threadring) at small sizes, against values computed here: the closed forms n*m,
%% (N, N(N+1)/2 mod 2^64) and 2*n*m, and threadring's id both by its closed form and by walking
%% the ring hop by hop. Also the number of processes each kernel spawns, and that a threadring
%% iteration leaves none of its ring behind. Run with `make test`.
-module(cb_coordination_tests).

%% Exported by hand, with the assertions of cb_asserts.hrl (no eunit.hrl in erlang-nox).
-export([mutex_test_/0, prodcons_test_/0, condition_test_/0, threadring_test_/0,
         spawn_count_test_/0, threadring_stops_ring_test/0]).

-include("cb_asserts.hrl").

%% A kernel call in a fresh process that does not trap exits, as the front end runs it; its
%% result string, or the test fails with the crash (or after 30 s, a hang).
result(Fun) ->
    Parent = self(),
    {Pid, Ref} = spawn_monitor(fun() -> Parent ! {self(), Fun()} end),
    receive
        {Pid, {Ns, Result, []}} when is_integer(Ns), Ns >= 0 ->
            erlang:demonitor(Ref, [flush]), Result;
        {'DOWN', Ref, process, Pid, Reason} -> error({kernel_crashed, Reason})
    after 30000 -> exit(Pid, kill), error(kernel_timeout)
    end.

name(Fmt, Args) -> lists:flatten(io_lib:format(Fmt, Args)).

fmt(Fmt, Args) -> name(Fmt, Args).

%% n = 1 and a few more workers; m = 0 (nothing to do), 1 and more.
sizes() -> [{N, M} || N <- [1, 2, 3, 8], M <- [0, 1, 2, 7, 100]].

mutex_test_() ->
    [{name("mutex n=~b m=~b", [N, M]),
      fun() -> ?assertEqual(fmt("count=~b", [N * M]),
                            result(fun() -> cb_coordination:mutex(N, M) end)) end}
     || {N, M} <- sizes()].

prodcons_test_() ->
    [{name("prodcons n=~b m=~b", [N, M]),
      fun() ->
              T = N * M,
              ?assertEqual(fmt("consumed=~b sum=~b", [T, (T * (T + 1) div 2) rem (1 bsl 64)]),
                           result(fun() -> cb_coordination:prodcons(N, M) end))
      end}
     || {N, M} <- sizes()].

condition_test_() ->
    [{name("condition n=~b m=~b", [N, M]),
      fun() -> ?assertEqual(fmt("value=~b", [2 * N * M]),
                            result(fun() -> cb_coordination:condition(N, M) end)) end}
     || {N, M} <- sizes()].

%% Entity 1 gets the token N; every hop moves it to the successor one less; the holder of 0
%% answers.
walk(Id, 0, _R) -> Id;
walk(Id, T, R) -> walk(Id rem R + 1, T - 1, R).

threadring_test_() ->
    [{name("threadring N=~b ring=~b", [N, R]),
      fun() ->
              Want = fmt("id=~b", [walk(1, N, R)]),
              ?assertEqual(Want, fmt("id=~b", [N rem R + 1])),
              ?assertEqual(Want, result(fun() -> cb_coordination:threadring(N, R) end))
      end}
     || R <- [2, 3, 5, 503], N <- [0, 1, 2, 3, 4, 5, 6, 1000, 1007]].

%% One process per worker plus the counter, queue or coordinator; one per ring member.
spawn_count_test_() ->
    [{name("~s spawns ~b", [What, Want]),
      fun() -> ?assertEqual(Want, cb_test_helpers:spawn_count(Fun)) end}
     || {What, Want, Fun} <-
            [{"mutex n=1", 2, fun() -> cb_coordination:mutex(1, 3) end},
             {"mutex n=8", 9, fun() -> cb_coordination:mutex(8, 3) end},
             {"prodcons n=1", 3, fun() -> cb_coordination:prodcons(1, 3) end},
             {"prodcons n=8", 17, fun() -> cb_coordination:prodcons(8, 3) end},
             {"condition n=1", 3, fun() -> cb_coordination:condition(1, 3) end},
             {"condition n=8", 17, fun() -> cb_coordination:condition(8, 3) end},
             {"threadring ring=2", 2, fun() -> cb_coordination:threadring(10, 2) end},
             {"threadring ring=503", 503, fun() -> cb_coordination:threadring(10, 503) end}]].

%% After an iteration returns, every ring process has ended or is about to: the kernel waits
%% for the stop to go round, so at most the last few are still exiting. Polled here (the test,
%% not the kernel) for up to a second.
threadring_stops_ring_test() ->
    Before = erlang:system_info(process_count),
    Want = fmt("id=~b", [walk(1, 1000, 503)]),
    ?assertEqual(Want, result(fun() -> cb_coordination:threadring(1000, 503) end)),
    ?assertEqual(true, cb_test_helpers:settles(Before, 100)).
