%% fannkuch-redux over the n! permutations cut into chunks (fannkuch.md).
%% K requested chunks: chunk = ceil(n!/K), tasks = ceil(n!/chunk); task t covers the indexes
%% [t*chunk, min(n!, (t+1)*chunk)) and yields (its max flips, its signed checksum).
%%   shape n-processes: the thesis' Erlang program (Gotovos and Christakis): n processes, one
%%                      contiguous (n-1)! block each (K = n, whatever K is passed), each sends
%%                      {Max, Checksum} to the parent, which combines them;
%%   shape per-chunk:   the same with one process per task of K requested chunks (default 150,
%%                      the spec's fixed chunking);
%%   shape pool:        W (= --workers) processes that ask the parent for the next task id until
%%                      none is left, keep a local (max, checksum) and send it once at the end.
%% A permutation is an Erlang list; the count array is a list [count1, ..., count(n-1)].
-module(cb_fannkuch).
-export([iteration/4, chunk_task/5, pool_worker/4]).

%% One timed iteration: {Ns, Result, Metrics}. The timed region covers spawning, every task
%% and combining (fannkuch.md).
iteration('n-processes', N, _K, _W) ->
    timed(N, N, fun(Fact, Chunk, Tasks) -> per_task(N, Fact, Chunk, Tasks) end);
iteration('per-chunk', N, K, _W) ->
    timed(N, K, fun(Fact, Chunk, Tasks) -> per_task(N, Fact, Chunk, Tasks) end);
iteration(pool, N, K, W) ->
    timed(N, K, fun(Fact, Chunk, Tasks) -> pool(N, Fact, Chunk, Tasks, W) end).

timed(N, K, Run) ->
    Fact = fact(N),
    Chunk = (Fact + K - 1) div K,
    Tasks = (Fact + Chunk - 1) div Chunk,
    T0 = erlang:monotonic_time(nanosecond),
    {Max, Sum} = Run(Fact, Chunk, Tasks),
    T1 = erlang:monotonic_time(nanosecond),
    {T1 - T0, lists:flatten(io_lib:format("maxflips=~b checksum=~b", [Max, Sum])), []}.

%% ------------------------------------------------------------------ shapes

per_task(N, Fact, Chunk, Tasks) ->
    Parent = self(),
    [spawn_link(?MODULE, chunk_task, [Parent, N, Fact, Chunk, T]) || T <- lists:seq(0, Tasks - 1)],
    combine(Tasks, 0, 0).

chunk_task(Parent, N, Fact, Chunk, T) ->
    {M, S} = task(N, Fact, Chunk, T),
    Parent ! {fannkuch_result, M, S}.

combine(0, Max, Sum) -> {Max, Sum};
combine(Left, Max, Sum) ->
    receive {fannkuch_result, M, S} -> combine(Left - 1, max(Max, M), Sum + S) end.

pool(N, Fact, Chunk, Tasks, W) ->
    Parent = self(),
    [spawn_link(?MODULE, pool_worker, [Parent, N, Fact, Chunk]) || _ <- lists:seq(1, W)],
    hand_out(0, Tasks, W, 0, 0).

%% The manager: answers each request for work with the next task id, or done.
hand_out(_Next, _Tasks, 0, Max, Sum) -> {Max, Sum};
hand_out(Next, Tasks, Busy, Max, Sum) ->
    receive
        {want, Pid} when Next < Tasks ->
            Pid ! {task, Next},
            hand_out(Next + 1, Tasks, Busy, Max, Sum);
        {want, Pid} ->
            Pid ! done,
            hand_out(Next, Tasks, Busy, Max, Sum);
        {fannkuch_result, M, S} ->
            hand_out(Next, Tasks, Busy - 1, max(Max, M), Sum + S)
    end.

pool_worker(Parent, N, Fact, Chunk) -> pool_worker(Parent, N, Fact, Chunk, 0, 0).

pool_worker(Parent, N, Fact, Chunk, Max, Sum) ->
    Parent ! {want, self()},
    receive
        {task, T} ->
            {M, S} = task(N, Fact, Chunk, T),
            pool_worker(Parent, N, Fact, Chunk, max(Max, M), Sum + S);
        done ->
            Parent ! {fannkuch_result, Max, Sum}
    end.

%% ------------------------------------------------------------------ the kernel

%% One task: decode its first index, then step with Mazurov's next() inside the chunk.
task(N, Fact, Chunk, T) ->
    Lo = T * Chunk,
    Hi = min(Fact, Lo + Chunk),
    {P, Counts} = decode(N, Lo),
    run(Lo, Hi, P, Counts, 0, 0).

run(I, Hi, P, Counts, Max, Sum) ->
    F = flips(P, 0),
    Max1 = max(Max, F),
    Sum1 = case I band 1 of
               0 -> Sum + F;
               1 -> Sum - F
           end,
    case I + 1 < Hi of
        true ->
            {P1, Counts1} = next(P, Counts),
            run(I + 1, Hi, P1, Counts1, Max1, Sum1);
        false ->
            {Max1, Sum1}
    end.

%% perm(i): for k = n-1 down to 1: d = i div k!, i = i rem k!, count[k] = d, rotate p[0..k] left by d.
decode(N, I) -> decode(N - 1, I, lists:seq(0, N - 1), []).

decode(0, _I, P, Counts) -> {P, Counts};
decode(K, I, P, Counts) ->
    F = fact(K),
    D = I div F,
    {Head, Tail} = lists:split(K + 1, P),
    {A, B} = lists:split(D, Head),
    decode(K - 1, I rem F, B ++ A ++ Tail, [D | Counts]).

%% Mazurov's step: rotate p[0..k] left by one and bump count[k], carrying while count[k] > k.
%% The first two clauses are the common cases, written out; the general step follows.
next([P0, P1 | Rest], [0 | Cs]) -> {[P1, P0 | Rest], [1 | Cs]};
%% k = 1 carries into k = 2 without a further carry: swap, then rotate p[0..2] left by one.
next([P0, P1, P2 | Rest], [1, C2 | Cs]) when C2 < 2 -> {[P0, P2, P1 | Rest], [0, C2 + 1 | Cs]};
next(P, Counts) -> next(P, Counts, 1).

next(P, [C | Cs], K) ->
    P1 = rotate1(P, K),
    case C + 1 > K of
        true ->
            {P2, Cs2} = next(P1, Cs, K + 1),
            {P2, [0 | Cs2]};
        false ->
            {P1, [C + 1 | Cs]}
    end.

%% Rotate the first K+1 elements left by one: the head goes after the next K elements.
rotate1([H | T], K) -> insert(K, T, H).

insert(0, T, H) -> [H | T];
insert(K, [X | T], H) -> [X | insert(K - 1, T, H)].

%% Flip the first q[0]+1 elements until 0 comes first.
flips([0 | _], F) -> F;
flips(Q, F) -> flips(flip(Q), F + 1).

%% One flip. Heads up to 11 (n <= 12) are written out as patterns; larger ones walk the list.
flip([1, A | R]) -> [A, 1 | R];
flip([2, A, B | R]) -> [B, A, 2 | R];
flip([3, A, B, C | R]) -> [C, B, A, 3 | R];
flip([4, A, B, C, D | R]) -> [D, C, B, A, 4 | R];
flip([5, A, B, C, D, E | R]) -> [E, D, C, B, A, 5 | R];
flip([6, A, B, C, D, E, F | R]) -> [F, E, D, C, B, A, 6 | R];
flip([7, A, B, C, D, E, F, G | R]) -> [G, F, E, D, C, B, A, 7 | R];
flip([8, A, B, C, D, E, F, G, H | R]) -> [H, G, F, E, D, C, B, A, 8 | R];
flip([9, A, B, C, D, E, F, G, H, I | R]) -> [I, H, G, F, E, D, C, B, A, 9 | R];
flip([10, A, B, C, D, E, F, G, H, I, J | R]) -> [J, I, H, G, F, E, D, C, B, A, 10 | R];
flip([11, A, B, C, D, E, F, G, H, I, J, K | R]) -> [K, J, I, H, G, F, E, D, C, B, A, 11 | R];
flip([H | _] = Q) -> reverse_prefix(H + 1, Q, []).

reverse_prefix(0, Rest, Acc) -> Acc ++ Rest;
reverse_prefix(K, [X | Rest], Acc) -> reverse_prefix(K - 1, Rest, [X | Acc]).

fact(0) -> 1;
fact(K) -> K * fact(K - 1).
