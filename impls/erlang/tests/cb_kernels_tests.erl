%% EUnit tests of the kernels (cb_fannkuch, cb_chameneos, cb_big), each against values this
%% module computes by itself: fannkuch by brute force over the spec's index order, chameneos by
%% its closed forms, big by drawing every worker's targets directly (big.md). The protocol
%% (arguments, JSON lines, exit status) is not tested here: `concbench check` drives it.
%% Run with `make test`.
-module(cb_kernels_tests).

%% EUnit finds the *_test/0 and *_test_/0 functions of this module. They are exported by hand,
%% with the assertions of cb_asserts.hrl, because eunit.hrl is not installed (see there).
-export([perm_order_test/0, fannkuch_shapes_test_/0, fannkuch_process_count_test_/0,
         chameneos_encore_test_/0, chameneos_redux_test_/0, big_test_/0]).

-include("cb_asserts.hrl").

%% ------------------------------------------------------------------ helpers

metric(Name, Metrics) ->
    {Name, V} = lists:keyfind(Name, 1, Metrics),
    V.

%% ------------------------------------------------------------------ fannkuch

%% perm(i) straight from fannkuch.md's definition: for k = n-1 down to 1, d = i div k!,
%% i = i rem k!, rotate p[0..k] left by d.
perm(N, I) -> perm(N - 1, I, lists:seq(0, N - 1)).

perm(0, _I, P) -> P;
perm(K, I, P) ->
    F = fact(K),
    {Front, Tail} = lists:split(K + 1, P),
    {A, B} = lists:split(I div F, Front),
    perm(K - 1, I rem F, B ++ A ++ Tail).

%% Reverse q[0..q[0]] until q[0] = 0.
brute_flips([0 | _]) -> 0;
brute_flips([H | _] = Q) ->
    {Prefix, Rest} = lists:split(H + 1, Q),
    1 + brute_flips(lists:reverse(Prefix) ++ Rest).

brute_fannkuch(N) ->
    {Max, Sum} = lists:foldl(
                   fun(I, {M, S}) ->
                           F = brute_flips(perm(N, I)),
                           {max(M, F), case I rem 2 of 0 -> S + F; 1 -> S - F end}
                   end, {0, 0}, lists:seq(0, fact(N) - 1)),
    lists:flatten(io_lib:format("maxflips=~b checksum=~b", [Max, Sum])).

fact(0) -> 1;
fact(K) -> K * fact(K - 1).

fannkuch(Shape, N, K, W) ->
    {Ns, Result, _} = cb_test_helpers:isolated(fun() -> cb_fannkuch:iteration(Shape, N, K, W) end),
    ?assert(is_integer(Ns) andalso Ns >= 0),
    Result.

%% The brute force itself, on the spec's worked examples: the order of the n = 4 listing and
%% the flips of {4,2,1,5,3} (1-based).
perm_order_test() ->
    Listing = [1234, 2134, 2314, 3214, 3124, 1324, 2341, 3241, 3421, 4321, 4231, 2431, 3412],
    ?assertEqual(Listing, [list_to_integer([$1 + X || X <- perm(4, I)])
                           || I <- lists:seq(0, length(Listing) - 1)]),
    ?assertEqual([3, 1, 0, 2], perm(4, 23)),
    ?assertEqual(5, brute_flips([3, 1, 0, 4, 2])).

fannkuch_shapes_test_() ->
    [{lists:flatten(io_lib:format("n=~b ~s K=~b W=~b", [N, Shape, K, W])),
      fun() -> ?assertEqual(brute_fannkuch(N), fannkuch(Shape, N, K, W)) end}
     || N <- lists:seq(1, 8),
        {Shape, K, W} <- [{'n-processes', 150, 2},      % K is ignored: the split is n
                          {'per-chunk', 150, 2}, {'per-chunk', 1, 2}, {'per-chunk', 7, 2},
                          {'per-chunk', 5040, 2},       % more chunks than permutations below n = 7
                          {pool, 150, 1}, {pool, 150, 3}, {pool, 7, 2}, {pool, 1, 4}]].

%% The faithful shape spawns exactly n processes (the thesis' Erlang program), per-chunk one
%% per task of ceil(n!/ceil(n!/K)), pool W: counted by tracing the spawns of the kernel's process.
fannkuch_process_count_test_() ->
    [{lists:flatten(io_lib:format("n=~b ~s K=~b W=~b spawns ~b", [N, Shape, K, W, Want])),
      fun() -> ?assertEqual(Want, cb_test_helpers:spawn_count(fun() -> cb_fannkuch:iteration(Shape, N, K, W) end)) end}
     || {Shape, N, K, W, Want} <- [{'n-processes', 5, 150, 2, 5}, {'n-processes', 8, 150, 2, 8},
                                   {'n-processes', 8, 8, 3, 8},
                                   {'per-chunk', 7, 150, 2, 149}, {'per-chunk', 8, 150, 2, 150},
                                   {'per-chunk', 4, 150, 2, 24}, {'per-chunk', 8, 8, 2, 8},
                                   {pool, 8, 150, 3, 3}]].

%% ------------------------------------------------------------------ chameneos

%% blue = 0, red = 1, yellow = 2; creature i starts with TEN[i mod 10] (chameneos.md).
-define(TEN, [0, 1, 2, 1, 2, 0, 1, 2, 1, 0]).

initial_colour_sum_mod3(C) ->
    lists:sum([lists:nth(I rem 10 + 1, ?TEN) || I <- lists:seq(0, C - 1)]) rem 3.

chameneos_encore_test_() ->
    [{lists:flatten(io_lib:format("encore C=~b M=~b", [C, M])),
      fun() ->
              {_, Result, Metrics} = cb_test_helpers:isolated(fun() -> cb_chameneos:encore(C, M) end),
              ?assertEqual(lists:flatten(io_lib:format("meetings=~b creature_meetings=~b",
                                                       [M, 2 * M])), Result),
              ?assertEqual(0, metric(self_meetings, Metrics)),
              ?assertEqual(initial_colour_sum_mod3(C), metric(colour_sum_mod3, Metrics)),
              Min = metric(min_meetings, Metrics),
              Max = metric(max_meetings, Metrics),
              ?assert(0 =< Min andalso Min =< Max andalso Max =< M),
              ?assert(metric(fairness_std, Metrics) >= 0)
      end}
     || {C, M} <- [{2, 1}, {2, 7}, {3, 1}, {3, 1000}, {7, 500}, {10, 1000}, {70, 2000},
                   {800, 400}]].

chameneos_redux_test_() ->
    [{lists:flatten(io_lib:format("redux n=~b", [N])),
      fun() ->
              {_, Result, Metrics} = cb_test_helpers:isolated(fun() -> cb_chameneos:redux(N) end),
              ?assertEqual(lists:flatten(io_lib:format(
                                           "meetings3=~b creature_meetings3=~b "
                                           "meetings10=~b creature_meetings10=~b",
                                           [N, 2 * N, N, 2 * N])), Result),
              ?assertEqual(0, metric(self_meetings, Metrics)),
              ?assertEqual(initial_colour_sum_mod3(3), metric(colour_sum_mod3_3, Metrics)),
              ?assertEqual(initial_colour_sum_mod3(10), metric(colour_sum_mod3_10, Metrics)),
              ?assert(metric(max_meetings_3, Metrics) =< N),
              ?assert(metric(max_meetings_10, Metrics) =< N)
      end}
     || N <- [1, 2, 10, 1000]].

%% ------------------------------------------------------------------ big

%% big.md's closed form: worker w (seeded with w) draws its P targets t = rng mod S_g in its
%% neighbourhood g = w div H; messages = 2*N*P; checksum = sum of pingsRecv[w]*(w+1) mod 2^64.
big_expected(N, P, H) ->
    Recv = lists:foldl(
             fun(W, Acc) ->
                     G = W div H,
                     S = min(N, (G + 1) * H) - G * H,
                     draw(P, W, S, G * H, Acc)
             end, #{}, lists:seq(0, N - 1)),
    Counts = [maps:get(W, Recv, 0) || W <- lists:seq(0, N - 1)],
    Sum = lists:sum([C * (W + 1) || {W, C} <- lists:zip(lists:seq(0, N - 1), Counts)]),
    {lists:flatten(io_lib:format("messages=~b checksum=~b", [2 * N * P, Sum rem (1 bsl 64)])),
     lists:min(Counts), lists:max(Counts)}.

draw(0, _Rng, _S, _Base, Acc) -> Acc;
draw(K, Rng, S, Base, Acc) ->
    Rng1 = (1664525 * Rng + 1013904223) rem (1 bsl 32),
    draw(K - 1, Rng1, S, Base, maps:update_with(Base + Rng1 rem S, fun(C) -> C + 1 end, 1, Acc)).

big_test_() ->
    [{lists:flatten(io_lib:format("~s N=~b P=~b H=~b", [Shape, N, P, H])),
      fun() ->
              {Want, WantMin, WantMax} = big_expected(N, P, H),
              {_, Result, Metrics} = cb_test_helpers:isolated(fun() -> cb_big:iteration(Shape, N, P, H) end),
              ?assertEqual(Want, Result),
              ?assertEqual(WantMin, metric(min_recv, Metrics)),
              ?assertEqual(WantMax, metric(max_recv, Metrics))
      end}
     || Shape <- [processes, tuple],
        {N, P, H} <- [{1, 5, 1}, {1, 5, 1000}, {7, 30, 3}, {10, 0, 4}, {20, 200, 1000},
                      {50, 100, 20}, {64, 50, 8}]].
