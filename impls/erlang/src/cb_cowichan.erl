%% The Cowichan kernels (randmat, thresh, winnow, outer, product) and their chain, with a process
%% per static row block (chain.md rule 2). Main sends each block process its job in one message,
%% the process computes its block and replies with it in one message, and main gathers the blocks
%% in block order. Each process times its own computation (from the job's arrival to just before
%% its reply) and sends that time with its block; a stage's compute time is the longest of them.
%%
%% Two shapes, differing only in how the data is held:
%%   blocks: matrices as a tuple of row binaries (8-bit cells for the integer matrices, 64-bit
%%           floats for outer's D), vectors as one binary of floats, winnow's points as one
%%           binary of <<I:32, J:32>> pairs, winnow candidates as integer keys
%%           V*n^2 + I*n + J (their order is the spec's (value, i, j) order);
%%   lists:  the paper's Erlang: matrices as lists of row lists, vectors as lists of floats,
%%           points as [{I, J}], candidates as {V, I, J} tuples.
%% Binaries above 64 bytes travel between processes by reference (the VM shares them); lists are
%% copied into the receiver's heap. That difference is what the two shapes measure.
%%
%% A standalone stage gets its input from prepare/3 (the preceding stages, same shape, untimed);
%% the chain runs the five stages back to back, each gathering its output in main.
-module(cb_cowichan).
-export([prepare/3, iteration/4]).
%% For the tests: the stages, the row partition, the generator, and conversions to plain lists.
-export([randmat/4, thresh/5, winnow/6, outer/4, product/5, partition/2, lcg/1, q/1,
         cs_ints/1, cs_floats/1,
         matrix_to_lists/3, vector_to_list/2, points_to_list/2]).

-compile({inline, [lcg/1, dist/4, now_ns/0]}).

-define(MASK32, 16#FFFFFFFF).
-define(MASK64, 16#FFFFFFFFFFFFFFFF).

%% ------------------------------------------------------------------ the benchmarks

%% The input of a standalone stage, built once before the first iteration (chain.md rule 3).
%% Cfg: #{n, p, nelts, seed, workers}.
prepare(randmat, _Shape, _Cfg) -> none;
prepare(chain, _Shape, _Cfg) -> none;
prepare(thresh, Shape, #{n := N, seed := Seed, workers := W}) ->
    {M, _} = randmat(Shape, N, Seed, W),
    M;
prepare(winnow, Shape, Cfg = #{n := N, p := P, workers := W}) ->
    M = prepare(thresh, Shape, Cfg),
    {{_T, Mask}, _} = thresh(Shape, M, N, P, W),
    {M, Mask};
prepare(outer, Shape, Cfg = #{n := N, nelts := Nelts, workers := W}) ->
    {M, Mask} = prepare(winnow, Shape, Cfg),
    {{_K, Points}, _} = winnow(Shape, M, Mask, N, Nelts, W),
    Points;
prepare(product, Shape, Cfg = #{nelts := Nelts, workers := W}) ->
    Points = prepare(outer, Shape, Cfg),
    {{D, V}, _} = outer(Shape, Points, Nelts, W),
    {D, V}.

%% One timed iteration: {Ns, Result, Metrics}. The result string is computed after the timer.
iteration(chain, Shape, #{n := N, p := P, nelts := Nelts, seed := Seed, workers := W}, none) ->
    T0 = now_ns(),
    {M, C1} = randmat(Shape, N, Seed, W),
    T1 = now_ns(),
    {{_T, Mask}, C2} = thresh(Shape, M, N, P, W),
    T2 = now_ns(),
    {{_K, Points}, C3} = winnow(Shape, M, Mask, N, Nelts, W),
    T3 = now_ns(),
    {{D, V}, C4} = outer(Shape, Points, Nelts, W),
    T4 = now_ns(),
    {R, C5} = product(Shape, D, V, Nelts, W),
    T5 = now_ns(),
    %% The chain's compute time: each stage's longest worker (plus winnow's central merge), summed.
    {T5 - T0, fmt("checksum=~b", [cs_floats(vector_to_list(Shape, R))]),
     [{compute_ns, C1 + C2 + C3 + C4 + C5},
      {stage_randmat_ns, T1 - T0}, {stage_thresh_ns, T2 - T1}, {stage_winnow_ns, T3 - T2},
      {stage_outer_ns, T4 - T3}, {stage_product_ns, T5 - T4}]};
iteration(Bench, Shape, Cfg, Input) ->
    T0 = now_ns(),
    {Out, C} = stage(Bench, Shape, Cfg, Input),
    T1 = now_ns(),
    {T1 - T0, result(Bench, Shape, Out), [{compute_ns, C}]}.

stage(randmat, Shape, #{n := N, seed := Seed, workers := W}, none) ->
    randmat(Shape, N, Seed, W);
stage(thresh, Shape, #{n := N, p := P, workers := W}, M) ->
    thresh(Shape, M, N, P, W);
stage(winnow, Shape, #{n := N, nelts := Nelts, workers := W}, {M, Mask}) ->
    winnow(Shape, M, Mask, N, Nelts, W);
stage(outer, Shape, #{nelts := Nelts, workers := W}, Points) ->
    outer(Shape, Points, Nelts, W);
stage(product, Shape, #{nelts := Nelts, workers := W}, {D, V}) ->
    product(Shape, D, V, Nelts, W).

%% The result strings (the specs' Result sections), from the gathered output.
result(randmat, Shape, M) ->
    fmt("checksum=~b", [cs_matrix(Shape, bytes, M)]);
result(thresh, Shape, {T, Mask}) ->
    Kept = fold_cells(fun erlang:'+'/2, 0, Shape, bytes, Mask),
    fmt("threshold=~b kept=~b checksum=~b", [T, Kept, cs_matrix(Shape, bytes, Mask)]);
result(winnow, Shape, {K, Points}) ->
    fmt("candidates=~b checksum=~b",
        [K, cs_ints(lists:append([[I, J] || {I, J} <- points_to_list(Shape, Points)]))]);
result(outer, Shape, {D, V}) ->
    fmt("matrix=~b vector=~b", [cs_matrix(Shape, floats, D), cs_floats(vector_to_list(Shape, V))]);
result(product, Shape, R) ->
    fmt("checksum=~b", [cs_floats(vector_to_list(Shape, R))]).

%% ------------------------------------------------------------------ randmat

%% M[i][j] = the j-th draw mod 100 of a generator seeded with seed + i (randmat.md).
randmat(Shape, N, Seed, W) ->
    {Parts, C} = map_blocks(blocks(N, W),
                            fun({S, H}) -> rand_rows(Shape, N, Seed, S, S + H) end),
    {join_rows(Shape, Parts), C}.

rand_rows(_Shape, _N, _Seed, I, I) -> [];
rand_rows(Shape, N, Seed, I, End) ->
    S = (Seed + I) band ?MASK32,
    Row = case Shape of
              blocks -> rand_bin(N, S, <<>>);
              lists -> rand_list(N, S)
          end,
    [Row | rand_rows(Shape, N, Seed, I + 1, End)].

rand_bin(0, _S, Acc) -> Acc;
rand_bin(K, S, Acc) ->
    S1 = lcg(S),
    rand_bin(K - 1, S1, <<Acc/binary, (S1 rem 100)>>).

rand_list(0, _S) -> [];
rand_list(K, S) ->
    S1 = lcg(S),
    [S1 rem 100 | rand_list(K - 1, S1)].

lcg(S) -> (1664525 * S + 1013904223) band ?MASK32.

%% ------------------------------------------------------------------ thresh

%% Two rounds with the same block processes (thresh.md): each sends its rows' histogram and
%% maximum; main merges them and picks t; each then gets t and replies with its mask rows.
thresh(Shape, M, N, P, W) ->
    Ref = make_ref(),
    Parent = self(),
    Slices = slices(Shape, M, blocks(N, W)),
    Pids = [spawn_link(fun() -> thresh_worker(Parent, Ref, Shape) end) || _ <- Slices],
    [Pid ! {Ref, Rows} || {Pid, Rows} <- lists:zip(Pids, Slices)],
    {Hists, Maxes} = lists:unzip([receive {Ref, Pid, HM} -> HM end || Pid <- Pids]),
    Hist = lists:foldl(fun(H, Acc) -> lists:zipwith(fun erlang:'+'/2, H, Acc) end,
                       hd(Hists), tl(Hists)),
    T = threshold(Hist, lists:max(Maxes), N * N * P div 100),
    [Pid ! {Ref, T} || Pid <- Pids],
    {Parts, C} = gather(Ref, Pids),
    {{T, join_rows(Shape, Parts)}, C}.

thresh_worker(Parent, Ref, Shape) ->
    receive {Ref, Rows} -> ok end,
    T0 = now_ns(),
    Counts = counters:new(100, []),          % this process's own histogram, shared with no one
    Max = lists:foldl(fun(Row, Mx) -> hist(Shape, Row, Counts, Mx) end, 0, Rows),
    Hist = [counters:get(Counts, V + 1) || V <- lists:seq(0, 99)],
    Ns1 = now_ns() - T0,
    Parent ! {Ref, self(), {Hist, Max}},
    receive {Ref, T} -> ok end,
    T1 = now_ns(),
    Mask = [mask_row(Shape, Row, T) || Row <- Rows],
    Ns2 = now_ns() - T1,
    Parent ! {Ref, self(), Mask, Ns1 + Ns2}.

hist(blocks, <<V, Rest/binary>>, Counts, Mx) ->
    counters:add(Counts, V + 1, 1),
    hist(blocks, Rest, Counts, max(V, Mx));
hist(lists, [V | Rest], Counts, Mx) ->
    counters:add(Counts, V + 1, 1),
    hist(lists, Rest, Counts, max(V, Mx));
hist(_Shape, _Empty, _Counts, Mx) -> Mx.

mask_row(blocks, Row, T) -> << <<(bit(V >= T))>> || <<V>> <= Row >>;
mask_row(lists, Row, T) -> [bit(V >= T) || V <- Row].

bit(true) -> 1;
bit(false) -> 0.

%% thresh.md's tie rule: whole bins from nmax down until the running total exceeds Count.
%% Hist lists the counts of 0..99.
threshold(Hist, NMax, Count) ->
    scan(lists:nthtail(99 - NMax, lists:reverse(Hist)), NMax, 0, Count, NMax).

scan([], _V, _Prefix, _Count, T) -> T;
scan(_Bins, _V, Prefix, Count, T) when Prefix > Count -> T;
scan([H | Rest], V, Prefix, Count, _T) -> scan(Rest, V - 1, Prefix + H, Count, V).

%% ------------------------------------------------------------------ winnow

%% Each block process gathers its masked cells and sorts them; main merges the sorted runs and
%% takes every chunk-th one (winnow.md). The merge and pick count towards the compute time.
winnow(Shape, M, Mask, N, Nelts, W) ->
    Blocks = blocks(N, W),
    Jobs = lists:zip3([S || {S, _} <- Blocks], slices(Shape, M, Blocks), slices(Shape, Mask, Blocks)),
    {Runs, C1} = map_blocks(Jobs, fun(Job) -> candidates(Shape, N, Job) end),
    T0 = now_ns(),
    Sorted = lists:merge(Runs),
    K = length(Sorted),
    %% winnow.md: fewer candidates than nelts fails the run (an exit: the front end reports it).
    K >= Nelts orelse exit({winnow, lists:flatten(io_lib:format("~b candidates, fewer than nelts = ~b",
                                                                [K, Nelts]))}),
    Picked = pick(Sorted, K div Nelts, Nelts),
    Points = case Shape of
                 blocks -> << <<(Key rem (N * N) div N):32, (Key rem N):32>> || Key <- Picked >>;
                 lists -> [{I, J} || {_V, I, J} <- Picked]
             end,
    {{K, Points}, C1 + now_ns() - T0}.

candidates(blocks, N, {Start, Rows, MaskRows}) ->
    lists:sort(cand_bins(Rows, MaskRows, Start * N, N * N, []));
candidates(lists, _N, {Start, Rows, MaskRows}) ->
    lists:sort(cand_lists(Rows, MaskRows, Start, [])).

cand_bins([Row | Rows], [MRow | MRows], Flat, NN, Acc) ->
    cand_bins(Rows, MRows, Flat + byte_size(Row), NN, cand_bin(Row, MRow, Flat, NN, Acc));
cand_bins([], [], _Flat, _NN, Acc) -> Acc.

cand_bin(<<V, Rest/binary>>, <<1, MRest/binary>>, Flat, NN, Acc) ->
    cand_bin(Rest, MRest, Flat + 1, NN, [V * NN + Flat | Acc]);
cand_bin(<<_, Rest/binary>>, <<_, MRest/binary>>, Flat, NN, Acc) ->
    cand_bin(Rest, MRest, Flat + 1, NN, Acc);
cand_bin(<<>>, <<>>, _Flat, _NN, Acc) -> Acc.

cand_lists([Row | Rows], [MRow | MRows], I, Acc) ->
    cand_lists(Rows, MRows, I + 1, cand_list(Row, MRow, I, 0, Acc));
cand_lists([], [], _I, Acc) -> Acc.

cand_list([V | Rest], [1 | MRest], I, J, Acc) -> cand_list(Rest, MRest, I, J + 1, [{V, I, J} | Acc]);
cand_list([_ | Rest], [_ | MRest], I, J, Acc) -> cand_list(Rest, MRest, I, J + 1, Acc);
cand_list([], [], _I, _J, Acc) -> Acc.

%% L[0], L[chunk], ..., L[(nelts-1)*chunk].
pick(_L, _Chunk, 0) -> [];
pick([X | _], _Chunk, 1) -> [X];
pick([X | _] = L, Chunk, Left) -> [X | pick(lists:nthtail(Chunk, L), Chunk, Left - 1)].

%% ------------------------------------------------------------------ outer

%% Every block process gets the whole point list and computes its rows of D and entries of v.
outer(Shape, Points, Nelts, W) ->
    {Parts, C} = map_blocks([{S, H, Points} || {S, H} <- blocks(Nelts, W)],
                            fun(Job) -> outer_block(Shape, Nelts, Job) end),
    {RowParts, VParts} = lists:unzip(Parts),
    V = case Shape of
            blocks -> list_to_binary(VParts);
            lists -> lists:append(VParts)
        end,
    {{join_rows(Shape, RowParts), V}, C}.

outer_block(Shape, Nelts, {Start, H, Points}) ->
    Pts = points_to_list(Shape, Points),
    Own = lists:sublist(Pts, Start + 1, H),
    Rows = outer_rows(Shape, Own, Start, Pts, float(Nelts)),
    Vs = [math:sqrt(float(X) * float(X) + float(Y) * float(Y)) || {X, Y} <- Own],
    case Shape of
        blocks -> {Rows, << <<F:64/float>> || F <- Vs >>};
        lists -> {Rows, Vs}
    end.

outer_rows(_Shape, [], _I, _Pts, _FN) -> [];
outer_rows(Shape, [{Xi, Yi} | Own], I, Pts, FN) ->
    [outer_row(Shape, Xi, Yi, I, Pts, FN) | outer_rows(Shape, Own, I + 1, Pts, FN)].

%% Row i: the distances before the diagonal, the diagonal (nelts times the row's largest
%% off-diagonal distance, the maximum starting at -1), the distances after it, j ascending.
outer_row(blocks, Xi, Yi, I, Pts, FN) ->
    {Before, After, M} = split_row_bin(Pts, Xi, Yi, I, <<>>, -1.0),
    <<Before/binary, (FN * M):64/float, After/binary>>;
outer_row(lists, Xi, Yi, I, Pts, FN) ->
    {RevBefore, RevAfter, M} = split_row_list(Pts, Xi, Yi, I, [], -1.0),
    lists:reverse(RevBefore, [FN * M | lists:reverse(RevAfter)]).

split_row_bin([_Self | Rest], Xi, Yi, 0, Before, M) ->
    {After, M1} = dists_bin(Rest, Xi, Yi, <<>>, M),
    {Before, After, M1};
split_row_bin([{X, Y} | Rest], Xi, Yi, K, Acc, M) ->
    D = dist(Xi, Yi, X, Y),
    split_row_bin(Rest, Xi, Yi, K - 1, <<Acc/binary, D:64/float>>, max(M, D)).

dists_bin([], _Xi, _Yi, Acc, M) -> {Acc, M};
dists_bin([{X, Y} | Rest], Xi, Yi, Acc, M) ->
    D = dist(Xi, Yi, X, Y),
    dists_bin(Rest, Xi, Yi, <<Acc/binary, D:64/float>>, max(M, D)).

split_row_list([_Self | Rest], Xi, Yi, 0, RevBefore, M) ->
    {RevAfter, M1} = dists_list(Rest, Xi, Yi, [], M),
    {RevBefore, RevAfter, M1};
split_row_list([{X, Y} | Rest], Xi, Yi, K, Acc, M) ->
    D = dist(Xi, Yi, X, Y),
    split_row_list(Rest, Xi, Yi, K - 1, [D | Acc], max(M, D)).

dists_list([], _Xi, _Yi, Acc, M) -> {Acc, M};
dists_list([{X, Y} | Rest], Xi, Yi, Acc, M) ->
    D = dist(Xi, Yi, X, Y),
    dists_list(Rest, Xi, Yi, [D | Acc], max(M, D)).

%% Integer differences, then converted; the squares and their sum are exact, sqrt is IEEE.
dist(Xi, Yi, X, Y) ->
    Dx = float(Xi - X),
    Dy = float(Yi - Y),
    math:sqrt(Dx * Dx + Dy * Dy).

%% ------------------------------------------------------------------ product

%% Every block process gets its rows of D and all of v, and replies with its slice of r.
product(Shape, D, V, Nelts, W) ->
    Blocks = blocks(Nelts, W),
    {Parts, C} = map_blocks([{Rows, V} || Rows <- slices(Shape, D, Blocks)],
                            fun({Rows, Vec}) -> product_block(Shape, Rows, Vec) end),
    R = case Shape of
            blocks -> list_to_binary(Parts);
            lists -> lists:append(Parts)
        end,
    {R, C}.

product_block(blocks, Rows, V) -> << <<(dot_bin(Row, V, 0.0)):64/float>> || Row <- Rows >>;
product_block(lists, Rows, V) -> [dot_list(Row, V, 0.0) || Row <- Rows].

%% acc = acc + D[i][j]*v[j], j ascending, each operation rounded (Erlang does not contract).
dot_bin(<<A:64/float, As/binary>>, <<B:64/float, Bs/binary>>, Acc) -> dot_bin(As, Bs, Acc + A * B);
dot_bin(<<>>, <<>>, Acc) -> Acc.

dot_list([A | As], [B | Bs], Acc) -> dot_list(As, Bs, Acc + A * B);
dot_list([], [], Acc) -> Acc.

%% ------------------------------------------------------------------ blocks and messages

%% chain.md rule 2: worker w gets h_w = floor((R - start_w) / (W - w)) rows from start_w
%% (smaller blocks first). Every worker's {Start, H}, empty ones included.
partition(R, W) -> partition(R, W, 0, 0).

partition(_R, W, W, _Start) -> [];
partition(R, W, Wk, Start) ->
    H = (R - Start) div (W - Wk),
    [{Start, H} | partition(R, W, Wk + 1, Start + H)].

%% The blocks that get a process (h_w = 0 starts none).
blocks(R, W) -> [B || {_, H} = B <- partition(R, W), H > 0].

%% One round: a process per job, sent its job in one message; it replies with Fun(Job) and the
%% time Fun took. Returns the replies in job order and the longest time.
map_blocks(Jobs, Fun) ->
    Ref = make_ref(),
    Parent = self(),
    Pids = [spawn_link(fun() -> block_worker(Parent, Ref, Fun) end) || _ <- Jobs],
    [Pid ! {Ref, Job} || {Pid, Job} <- lists:zip(Pids, Jobs)],
    gather(Ref, Pids).

block_worker(Parent, Ref, Fun) ->
    receive {Ref, Job} -> ok end,
    T0 = now_ns(),
    Out = Fun(Job),
    Ns = now_ns() - T0,
    Parent ! {Ref, self(), Out, Ns}.

gather(Ref, Pids) ->
    lists:foldr(fun(Pid, {Outs, C}) ->
                        receive {Ref, Pid, Out, Ns} -> {[Out | Outs], max(C, Ns)} end
                end, {[], 0}, Pids).

%% Each block's rows of a matrix, in block order.
slices(blocks, M, Blocks) -> [[element(I, M) || I <- lists:seq(S + 1, S + H)] || {S, H} <- Blocks];
slices(lists, M, Blocks) -> split_rows(M, Blocks).

split_rows(_Rows, []) -> [];
split_rows(Rows, [{_S, H} | Blocks]) ->
    {Mine, Rest} = lists:split(H, Rows),
    [Mine | split_rows(Rest, Blocks)].

%% The gathered blocks (each a list of rows, in block order) as one matrix.
join_rows(blocks, Parts) -> list_to_tuple(lists:append(Parts));
join_rows(lists, Parts) -> lists:append(Parts).

%% ------------------------------------------------------------------ plain forms and checksums

%% A matrix as a list of row lists; Kind says what a blocks row holds (8-bit cells or floats).
matrix_to_lists(Shape, Kind, M) -> [row_to_list(Shape, Kind, Row) || Row <- rows(Shape, M)].

rows(blocks, M) -> tuple_to_list(M);
rows(lists, M) -> M.

row_to_list(blocks, bytes, Row) -> binary_to_list(Row);
row_to_list(blocks, floats, Row) -> [F || <<F:64/float>> <= Row];
row_to_list(lists, _Kind, Row) -> Row.

vector_to_list(blocks, V) -> [F || <<F:64/float>> <= V];
vector_to_list(lists, V) -> V.

points_to_list(blocks, P) -> [{I, J} || <<I:32, J:32>> <= P];
points_to_list(lists, P) -> P.

%% Folds F over the cells of a matrix in row-major order, a row at a time.
fold_cells(F, Acc0, Shape, Kind, M) ->
    lists:foldl(fun(Row, Acc) -> lists:foldl(F, Acc, row_to_list(Shape, Kind, Row)) end,
                Acc0, rows(Shape, M)).

%% chain.md rule 5: q(x) = round half away from zero of one binary64 product (Erlang's round/1
%% rounds half away from zero); cs = sum of v[k]*(k+1) mod 2^64 over k = 0, 1, ..., a negative q
%% entering as its two's complement. The state is {k+1, sum}.
q(X) -> round(X * 1.0e6).

cs_step(V, {K, Acc}) -> {K + 1, (Acc + (V band ?MASK64) * K) band ?MASK64}.

cs_ints(Vs) -> element(2, lists:foldl(fun cs_step/2, {1, 0}, Vs)).

cs_floats(Fs) -> element(2, lists:foldl(fun(F, S) -> cs_step(q(F), S) end, {1, 0}, Fs)).

cs_matrix(Shape, bytes, M) -> element(2, fold_cells(fun cs_step/2, {1, 0}, Shape, bytes, M));
cs_matrix(Shape, floats, M) ->
    element(2, fold_cells(fun(F, S) -> cs_step(q(F), S) end, {1, 0}, Shape, floats, M)).

fmt(Format, Args) -> lists:flatten(io_lib:format(Format, Args)).

now_ns() -> erlang:monotonic_time(nanosecond).
