%% EUnit tests of the Cowichan kernels (cb_cowichan): the generator against the spec's check
%% values, rule 2's row partition, the quantisation and checksum rules, the thresh tie rule and
%% the winnow order on hand-made inputs, and every stage and the chain, in both shapes, against a
%% sequential kernel written here from the spec files, on small random inputs at several worker
%% counts (n below W included). No reference result of the specs is copied here: the results are
%% compared with what this module computes itself. Run with `make test`.
-module(cb_cowichan_tests).

%% Exported by hand, with the assertions of cb_asserts.hrl (no eunit.hrl in erlang-nox).
-export([lcg_test/0, partition_test_/0, quantise_test/0, checksum_test/0, thresh_ties_test_/0,
         winnow_order_test_/0, winnow_too_few_test_/0, stages_test_/0, iterations_test_/0,
         processes_test_/0]).

-include("cb_asserts.hrl").

-define(SHAPES, [blocks, lists]).
-define(WORKERS, [1, 2, 3, 7]).

name(Fmt, Args) -> lists:flatten(io_lib:format(Fmt, Args)).

%% ------------------------------------------------------------------ the sequential kernel

%% From the specs, written plainly: lists of lists, one loop each, no processes.
seq_lcg(S) -> (1664525 * S + 1013904223) rem (1 bsl 32).

seq_randmat(N, Seed) ->
    [seq_row(N, (Seed + I) rem (1 bsl 32)) || I <- lists:seq(0, N - 1)].

seq_row(0, _S) -> [];
seq_row(K, S) -> S1 = seq_lcg(S), [S1 rem 100 | seq_row(K - 1, S1)].

seq_thresh(M, P) ->
    N = length(M),
    Flat = lists:append(M),
    NMax = lists:max(Flat),
    Count = N * N * P div 100,
    T = seq_scan(NMax, 0, Count, NMax, Flat),
    {T, [[case V >= T of true -> 1; false -> 0 end || V <- Row] || Row <- M]}.

%% while v >= 0 and prefix <= count: prefix += hist[v]; t = v; v -= 1
seq_scan(V, Prefix, Count, T, _Flat) when V < 0; Prefix > Count -> T;
seq_scan(V, Prefix, Count, _T, Flat) ->
    seq_scan(V - 1, Prefix + length([X || X <- Flat, X =:= V]), Count, V, Flat).

seq_winnow(M, Mask, Nelts) ->
    L = lists:sort([{V, I, J} || {I, Row, MRow} <- lists:zip3(lists:seq(0, length(M) - 1), M, Mask),
                                 {J, V, 1} <- lists:zip3(lists:seq(0, length(Row) - 1), Row, MRow)]),
    K = length(L),
    Chunk = K div Nelts,
    {K, [begin {_, I, J} = lists:nth(Kk * Chunk + 1, L), {I, J} end || Kk <- lists:seq(0, Nelts - 1)]}.

seq_outer(Points) ->
    Nelts = length(Points),
    Idx = lists:zip(lists:seq(0, Nelts - 1), Points),
    D = [begin
             Off = [{J, math:sqrt(float(Xi - Xj) * float(Xi - Xj) + float(Yi - Yj) * float(Yi - Yj))}
                    || {J, {Xj, Yj}} <- Idx, J =/= I],
             Max = lists:foldl(fun({_, Dj}, Acc) -> max(Acc, Dj) end, -1.0, Off),
             [case J of I -> float(Nelts) * Max; _ -> element(2, lists:keyfind(J, 1, Off)) end
              || J <- lists:seq(0, Nelts - 1)]
         end || {I, {Xi, Yi}} <- Idx],
    V = [math:sqrt(float(X) * float(X) + float(Y) * float(Y)) || {X, Y} <- Points],
    {D, V}.

seq_product(D, V) ->
    [lists:foldl(fun({A, B}, Acc) -> Acc + A * B end, 0.0, lists:zip(Row, V)) || Row <- D].

%% q by hand: truncate, then step away from zero when the fraction is at least one half.
seq_q(X) ->
    F = X * 1.0e6,
    T = trunc(F),
    Frac = F - T,
    if Frac >= 0.5 -> T + 1;
       Frac =< -0.5 -> T - 1;
       true -> T
    end.

%% The exact sum, reduced mod 2^64 at the end (a negative term as its residue).
seq_cs(Vs) ->
    Sum = lists:sum([V * K || {K, V} <- lists:zip(lists:seq(1, length(Vs)), Vs)]),
    ((Sum rem (1 bsl 64)) + (1 bsl 64)) rem (1 bsl 64).

%% ------------------------------------------------------------------ shape forms

to_shape(lists, _Kind, M) -> M;
to_shape(blocks, bytes, M) -> list_to_tuple([list_to_binary(Row) || Row <- M]);
to_shape(blocks, floats, M) -> list_to_tuple([<< <<F:64/float>> || F <- Row >> || Row <- M]).

vec_to_shape(lists, V) -> V;
vec_to_shape(blocks, V) -> << <<F:64/float>> || F <- V >>.

pts_to_shape(lists, P) -> P;
pts_to_shape(blocks, P) -> << <<I:32, J:32>> || {I, J} <- P >>.

%% ------------------------------------------------------------------ rules

lcg_test() ->
    %% The spec's check values: seed 0 -> 1013904223 (mod 100 = 23), seed 12345 -> 87628868.
    ?assertEqual(1013904223, cb_cowichan:lcg(0)),
    ?assertEqual(23, cb_cowichan:lcg(0) rem 100),
    ?assertEqual(87628868, cb_cowichan:lcg(12345)),
    ?assertEqual(868, cb_cowichan:lcg(12345) rem 1000),
    %% Wraps at 32 bits from the largest state.
    ?assertEqual(seq_lcg(16#FFFFFFFF), cb_cowichan:lcg(16#FFFFFFFF)),
    ?assert(cb_cowichan:lcg(16#FFFFFFFF) < 1 bsl 32).

partition_test_() ->
    [{"n=10 W=4 gives 2, 2, 3, 3",
      fun() -> ?assertEqual([{0, 2}, {2, 2}, {4, 3}, {7, 3}], cb_cowichan:partition(10, 4)) end},
     {"n=10000 W=32: 16 blocks of 312, then 16 of 313",
      fun() -> ?assertEqual(lists:duplicate(16, 312) ++ lists:duplicate(16, 313),
                            [H || {_, H} <- cb_cowichan:partition(10000, 32)]) end},
     {"n=2 W=4: the empty blocks come first",
      fun() -> ?assertEqual([0, 0, 1, 1], [H || {_, H} <- cb_cowichan:partition(2, 4)]) end},
     {"rule 2 for R = 0..40, W = 1..12",
      fun() ->
              [begin
                   Blocks = cb_cowichan:partition(R, W),
                   ?assertEqual(W, length(Blocks)),
                   check_rule2(R, W, 0, 0, Blocks)
               end || R <- lists:seq(0, 40), W <- lists:seq(1, 12)]
      end}].

check_rule2(R, W, W, R, []) -> ok;
check_rule2(R, W, Wk, Start, [{S, H} | Rest]) ->
    ?assertEqual(Start, S),
    ?assertEqual((R - Start) div (W - Wk), H),
    check_rule2(R, W, Wk + 1, Start + H, Rest).

quantise_test() ->
    %% x*1e6 exactly halfway (2^-7 * 10^6 = 7812.5): away from zero on both sides.
    ?assertEqual(7813, cb_cowichan:q(0.0078125)),
    ?assertEqual(-7813, cb_cowichan:q(-0.0078125)),
    ?assertEqual(3906, cb_cowichan:q(0.00390625)),       % 3906.25
    ?assertEqual(-3906, cb_cowichan:q(-0.00390625)),
    ?assertEqual(0, cb_cowichan:q(0.0)),
    %% Against the truncating definition on random values of many magnitudes.
    rand:seed(exsss, {7, 8, 9}),
    [begin
         X = (rand:uniform() - 0.5) * math:pow(10, rand:uniform(18) - 6),
         ?assertEqual(seq_q(X), cb_cowichan:q(X))
     end || _ <- lists:seq(1, 2000)].

checksum_test() ->
    ?assertEqual(0, cb_cowichan:cs_ints([])),
    ?assertEqual(1 * 3 + 2 * 4, cb_cowichan:cs_ints([3, 4])),
    %% A negative value enters as its two's complement.
    ?assertEqual((1 bsl 64) - 1, cb_cowichan:cs_ints([-1])),
    ?assertEqual(2, cb_cowichan:cs_ints([-1, 0, 1])),
    %% Wraps mod 2^64.
    ?assertEqual(1 bsl 63, cb_cowichan:cs_ints([1 bsl 63, 1 bsl 63])),
    rand:seed(exsss, {1, 2, 3}),
    Big = [rand:uniform(1 bsl 62) - (1 bsl 61) || _ <- lists:seq(1, 500)],
    ?assertEqual(seq_cs(Big), cb_cowichan:cs_ints(Big)),
    Fs = [(rand:uniform() - 0.5) * 1.0e12 || _ <- lists:seq(1, 500)],
    ?assertEqual(seq_cs([seq_q(F) || F <- Fs]), cb_cowichan:cs_floats(Fs)).

%% ------------------------------------------------------------------ thresh ties, winnow order

%% Bins: 5 -> 2, 4 -> 0, 3 -> 3, 1 -> 1, 0 -> 3 (n = 3, 9 cells).
-define(TIE_M, [[5, 5, 3], [3, 3, 1], [0, 0, 0]]).

thresh_ties_test_() ->
    %% {p, t}: count = floor(9p/100); whole bins are taken from the top until the total exceeds
    %% count, empty bins included, and every cell equal to t is kept.
    Cases = [{0, 5},      % count 0: the 5 bin (2 cells) exceeds it at once
             {22, 5},     % count 1: the 5 bin overshoots, and is still taken whole
             {23, 3},     % count 2: 5 gives 2, the empty 4 bin 2, the 3 bin 5
             {56, 1},     % count 5: 5, 4, 3 give 5, the empty 2 bin 5, the 1 bin 6
             {67, 0},     % count 6: 6 after the 1 bin does not exceed it, so the 0 bin too
             {100, 0}],   % count 9: never exceeded; the scan ends at 0
    [{name("ties p=~b ~s W=~b", [P, Shape, W]),
      fun() ->
              {T, Mask} = seq_thresh(?TIE_M, P),
              ?assertEqual(Want, T),
              ?assertEqual(lists:sum([1 || V <- lists:append(?TIE_M), V >= Want]),
                           lists:sum(lists:append(Mask))),
              {{T2, Mask2}, _} = cb_test_helpers:isolated(fun() ->
                                                  cb_cowichan:thresh(Shape, to_shape(Shape, bytes, ?TIE_M),
                                                                     3, P, W)
                                          end),
              ?assertEqual(T, T2),
              ?assertEqual(Mask, cb_cowichan:matrix_to_lists(Shape, bytes, Mask2))
      end}
     || {P, Want} <- Cases, Shape <- ?SHAPES, W <- [1, 2, 4]].

-define(ORDER_M, [[7, 3, 7], [3, 7, 3], [7, 7, 3]]).

winnow_order_test_() ->
    AllOnes = [[1, 1, 1], [1, 1, 1], [1, 1, 1]],
    Sorted = [{0, 1}, {1, 0}, {1, 2}, {2, 2}, {0, 0}, {0, 2}, {1, 1}, {2, 0}, {2, 1}],
    Mask = [[1, 0, 1], [0, 1, 1], [1, 0, 1]],     % keeps (7,0,0) (7,0,2) (7,1,1) (3,1,2) (7,2,0) (3,2,2)
    [{name("winnow order ~s W=~b", [Shape, W]),
      fun() ->
              Run = fun(Mk, Nelts) ->
                            {{K, P}, _} = cb_test_helpers:isolated(fun() ->
                                                           cb_cowichan:winnow(Shape, to_shape(Shape, bytes, ?ORDER_M),
                                                                              to_shape(Shape, bytes, Mk), 3, Nelts, W)
                                                   end),
                            {K, cb_cowichan:points_to_list(Shape, P)}
                    end,
              %% By value, then row, then column; chunk = floor(K / nelts).
              ?assertEqual({9, Sorted}, Run(AllOnes, 9)),
              ?assertEqual({9, [{0, 1}, {1, 2}, {0, 0}, {1, 1}]}, Run(AllOnes, 4)),
              ?assertEqual({9, [{0, 1}, {0, 0}]}, Run(AllOnes, 2)),      % chunk 4
              ?assertEqual({9, [{0, 1}]}, Run(AllOnes, 1)),
              ?assertEqual({6, [{1, 2}, {2, 2}, {0, 0}, {0, 2}, {1, 1}, {2, 0}]}, Run(Mask, 6)),
              ?assertEqual({6, [{1, 2}, {0, 0}, {1, 1}]}, Run(Mask, 3)),
              ?assertEqual(seq_winnow(?ORDER_M, Mask, 3), Run(Mask, 3))
      end}
     || Shape <- ?SHAPES, W <- [1, 2, 3, 7]].

%% Fewer candidates than nelts fails the run.
winnow_too_few_test_() ->
    [{name("winnow K < nelts ~s", [Shape]),
      fun() ->
              M = to_shape(Shape, bytes, ?ORDER_M),
              Mask = to_shape(Shape, bytes, [[1, 0, 0], [0, 0, 0], [0, 0, 1]]),
              ?assertEqual(crashed,
                           try cb_test_helpers:isolated(fun() -> cb_cowichan:winnow(Shape, M, Mask, 3, 3, 2) end)
                           catch error:{kernel_crashed, _} -> crashed
                           end)
      end}
     || Shape <- ?SHAPES].

%% ------------------------------------------------------------------ stages on random inputs

%% Each stage alone, on random inputs of its own (not the previous stage's output): a random
%% matrix of values 0..99, a random p, a random mask, distinct random points, random doubles of
%% both signs. Every shape at W = 1, 2, 3, 7 against the sequential kernel, exactly.
stages_test_() ->
    [{name("stages n=~b ~s W=~b", [N, Shape, W]),
      fun() -> rand:seed(exsss, {N, W, 17}), stages(N, Shape, W) end}
     || N <- [1, 2, 3, 5, 8, 13, 31], Shape <- ?SHAPES, W <- ?WORKERS].

stages(N, Shape, W) ->
    Seed = rand:uniform(1 bsl 32) - 1,
    {M, C1} = cb_test_helpers:isolated(fun() -> cb_cowichan:randmat(Shape, N, Seed, W) end),
    ?assertEqual(seq_randmat(N, Seed), cb_cowichan:matrix_to_lists(Shape, bytes, M)),
    ?assert(is_integer(C1) andalso C1 >= 0),

    RM = [[rand:uniform(100) - 1 || _ <- lists:seq(1, N)] || _ <- lists:seq(1, N)],
    P = rand:uniform(101) - 1,
    {T, Mask} = seq_thresh(RM, P),
    {{T2, Mask2}, _} = cb_test_helpers:isolated(fun() -> cb_cowichan:thresh(Shape, to_shape(Shape, bytes, RM), N, P, W) end),
    ?assertEqual({T, Mask}, {T2, cb_cowichan:matrix_to_lists(Shape, bytes, Mask2)}),

    RMask = [[rand:uniform(2) - 1 || _ <- lists:seq(1, N)] || _ <- lists:seq(1, N)],
    K = lists:sum(lists:append(RMask)),
    [begin
         {{K2, Pts}, _} = cb_test_helpers:isolated(fun() ->
                                           cb_cowichan:winnow(Shape, to_shape(Shape, bytes, RM),
                                                              to_shape(Shape, bytes, RMask), N, Nelts, W)
                                   end),
         ?assertEqual(seq_winnow(RM, RMask, Nelts), {K2, cb_cowichan:points_to_list(Shape, Pts)})
     end || K > 0, Nelts <- lists:usort([1, max(1, K div 3), K])],

    Cells = [{I, J} || I <- lists:seq(0, N - 1), J <- lists:seq(0, N - 1)],
    Points = lists:sublist([C || {_, C} <- lists:sort([{rand:uniform(), C} || C <- Cells])],
                           rand:uniform(min(N * N, 2 * N + 1))),
    Nelts2 = length(Points),
    {D, V} = seq_outer(Points),
    {{D2, V2}, _} = cb_test_helpers:isolated(fun() -> cb_cowichan:outer(Shape, pts_to_shape(Shape, Points), Nelts2, W) end),
    ?assertEqual(D, cb_cowichan:matrix_to_lists(Shape, floats, D2)),
    ?assertEqual(V, cb_cowichan:vector_to_list(Shape, V2)),

    RD = [[(rand:uniform() - 0.5) * 1.0e4 || _ <- lists:seq(1, Nelts2)] || _ <- lists:seq(1, Nelts2)],
    RV = [(rand:uniform() - 0.5) * 1.0e3 || _ <- lists:seq(1, Nelts2)],
    {R, _} = cb_test_helpers:isolated(fun() ->
                              cb_cowichan:product(Shape, to_shape(Shape, floats, RD), vec_to_shape(Shape, RV),
                                                  Nelts2, W)
                      end),
    ?assertEqual(seq_product(RD, RV), cb_cowichan:vector_to_list(Shape, R)).

%% ------------------------------------------------------------------ whole iterations

%% prepare/3 and iteration/4 of the six benchmarks against result strings built here from the
%% sequential chain; the seeds include ones whose rows wrap past 2^32 - 1.
iterations_test_() ->
    [{name("iterations n=~b p=~b seed=~b ~s W=~b", [N, P, Seed, Shape, W]),
      fun() -> iterations(N, P, Want, Seed, Shape, W) end}
     || {N, P, Want, Seed} <- [{1, 1, 1, 0}, {2, 50, 2, 3}, {5, 30, 4, 4294967290},
                               {13, 10, 13, 99}, {24, 5, 24, 4294967295}, {40, 1, 40, 0}],
        Shape <- ?SHAPES, W <- ?WORKERS].

iterations(N, P, Want, Seed, Shape, W) ->
    M = seq_randmat(N, Seed),
    {T, Mask} = seq_thresh(M, P),
    Kept = lists:sum(lists:append(Mask)),
    Nelts = min(Want, Kept),                  % winnow needs nelts <= K
    {K, Points} = seq_winnow(M, Mask, Nelts),
    {D, V} = seq_outer(Points),
    R = seq_product(D, V),
    Cs = fun(Fs) -> seq_cs([seq_q(F) || F <- Fs]) end,
    Expected = [{randmat, name("checksum=~b", [seq_cs(lists:append(M))])},
                {thresh, name("threshold=~b kept=~b checksum=~b", [T, Kept, seq_cs(lists:append(Mask))])},
                {winnow, name("candidates=~b checksum=~b",
                              [K, seq_cs(lists:append([[I, J] || {I, J} <- Points]))])},
                {outer, name("matrix=~b vector=~b", [Cs(lists:append(D)), Cs(V)])},
                {product, name("checksum=~b", [Cs(R)])},
                {chain, name("checksum=~b", [Cs(R)])}],
    Cfg = #{n => N, p => P, nelts => Nelts, seed => Seed, workers => W},
    [begin
         {Ns, Result, Metrics} =
             cb_test_helpers:isolated(fun() ->
                              Input = cb_cowichan:prepare(Bench, Shape, Cfg),
                              cb_cowichan:iteration(Bench, Shape, Cfg, Input)
                      end),
         ?assertEqual({Bench, Want1}, {Bench, Result}),
         ?assert(is_integer(Ns) andalso Ns >= 0),
         Keys = [compute_ns] ++ [stage_randmat_ns || Bench =:= chain] ++
             [stage_thresh_ns || Bench =:= chain] ++ [stage_winnow_ns || Bench =:= chain] ++
             [stage_outer_ns || Bench =:= chain] ++ [stage_product_ns || Bench =:= chain],
         ?assertEqual(Keys, [Key || {Key, _} <- Metrics]),
         ?assert(lists:all(fun({_, X}) -> is_integer(X) andalso X >= 0 end, Metrics))
     end || {Bench, Want1} <- Expected].

%% ------------------------------------------------------------------ processes

%% One process per non-empty block (rule 2: a worker with h_w = 0 is not started), counted by
%% tracing the spawns of the process that runs the stage.
processes_test_() ->
    [{name("~s ~s n=~b W=~b spawns ~b", [Stage, Shape, N, W, min(N, W)]),
      fun() -> ?assertEqual(min(N, W), cb_test_helpers:spawn_count(stage_fun(Stage, Shape, N, W))) end}
     || Stage <- [randmat, thresh, outer, product], Shape <- ?SHAPES,
        {N, W} <- [{2, 4}, {5, 3}, {1, 7}, {10, 10}]].

stage_fun(randmat, Shape, N, W) -> fun() -> cb_cowichan:randmat(Shape, N, 0, W) end;
stage_fun(thresh, Shape, N, W) ->
    M = to_shape(Shape, bytes, seq_randmat(N, 0)),
    fun() -> cb_cowichan:thresh(Shape, M, N, 10, W) end;
stage_fun(outer, Shape, N, W) ->
    P = pts_to_shape(Shape, [{I, I} || I <- lists:seq(0, N - 1)]),
    fun() -> cb_cowichan:outer(Shape, P, N, W) end;
stage_fun(product, Shape, N, W) ->
    D = to_shape(Shape, floats, [[1.0 || _ <- lists:seq(1, N)] || _ <- lists:seq(1, N)]),
    V = vec_to_shape(Shape, [2.0 || _ <- lists:seq(1, N)]),
    fun() -> cb_cowichan:product(Shape, D, V, N, W) end.
