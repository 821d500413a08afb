%% chameneos, message form (chameneos.md): one process per creature; the broker (meeting place)
%% is the calling process. The broker takes requests in mailbox order two at a time and sends
%% each creature its partner's {Pid, Colour}; the creature computes the complement itself.
%% After the last meeting every further request is answered with `stop`; a stopped creature
%% reports (meetings, self-meetings, colour) and ends, and the broker sums the C reports.
%%
%% variant=encore: C creatures, M meetings, with the spec's start gate (the broker forms no
%% meeting before it has received all C first requests, then serves them in arrival order).
%% variant=redux: game A (3 creatures) then game B (10 creatures), n meetings each, no gate.
-module(cb_chameneos).
-export([encore/2, redux/1, creature/2]).

-define(TEN, {0, 1, 2, 1, 2, 0, 1, 2, 1, 0}).   % blue=0 red=1 yellow=2

encore(C, M) ->
    T0 = erlang:monotonic_time(nanosecond),
    G = game(C, M, true),
    T1 = erlang:monotonic_time(nanosecond),
    {Meetings, Counts, Self, ColourSum} = G,
    Result = io_lib:format("meetings=~b creature_meetings=~b", [Meetings, lists:sum(Counts)]),
    Metrics = fairness(Counts, M, C, "") ++
        [{self_meetings, Self}, {colour_sum_mod3, ColourSum rem 3}],
    {T1 - T0, lists:flatten(Result), Metrics}.

redux(N) ->
    T0 = erlang:monotonic_time(nanosecond),
    A = game(3, N, false),
    B = game(10, N, false),
    T1 = erlang:monotonic_time(nanosecond),
    {MA, CA, SA, ColA} = A,
    {MB, CB, SB, ColB} = B,
    Result = io_lib:format("meetings3=~b creature_meetings3=~b meetings10=~b creature_meetings10=~b",
                           [MA, lists:sum(CA), MB, lists:sum(CB)]),
    Metrics = fairness(CA, N, 3, "_3") ++ fairness(CB, N, 10, "_10") ++
        [{self_meetings, SA + SB}, {self_meetings_3, SA}, {self_meetings_10, SB},
         {colour_sum_mod3_3, ColA rem 3}, {colour_sum_mod3_10, ColB rem 3}],
    {T1 - T0, lists:flatten(Result), Metrics}.

%% Per-creature counts against the ideal 2M/C: population standard deviation, cv, min, max.
fairness(Counts, M, C, Suffix) ->
    Mean = 2 * M / C,
    Var = lists:sum([(K - Mean) * (K - Mean) || K <- Counts]) / C,
    Std = math:sqrt(Var),
    [{key("fairness_std", Suffix), Std}, {key("cv", Suffix), Std / Mean},
     {key("min_meetings", Suffix), lists:min(Counts)}, {key("max_meetings", Suffix), lists:max(Counts)}].

key(Name, Suffix) -> list_to_atom(Name ++ Suffix).

%% ------------------------------------------------------------------ one game

%% Returns {meetings counted by the broker, per-creature counts, Σ self-meetings, Σ final colours}.
game(C, M, Gate) ->
    Broker = self(),
    [spawn_link(?MODULE, creature, [Broker, element(I rem 10 + 1, ?TEN)]) || I <- lists:seq(0, C - 1)],
    Meetings = case Gate of
                   true -> serve_list(gate(C, []), M, 0, none);
                   false -> broker(M, 0)
               end,
    {Counts, Self, Colours} = collect(C, [], 0, 0),
    {Meetings, Counts, Self, Colours}.

%% The start gate: the first C requests, which are all the creatures' first ones.
gate(0, Acc) -> lists:reverse(Acc);
gate(K, Acc) ->
    receive {request, Pid, Colour} -> gate(K - 1, [{Pid, Colour} | Acc]) end.

%% Serve the gated requests in arrival order, then go on from the mailbox.
serve_list([], M, Meetings, none) -> broker(M, Meetings);
serve_list([], M, Meetings, {P1, C1}) -> broker(M, Meetings, P1, C1);
serve_list([{P, _} | Rest], M, M, none) -> P ! stop, serve_list(Rest, M, M, none);
serve_list([{P, C} | Rest], M, Meetings, none) -> serve_list(Rest, M, Meetings, {P, C});
serve_list([{P2, C2} | Rest], M, Meetings, {P1, C1}) ->
    P1 ! {meet, P2, C2},
    P2 ! {meet, P1, C1},
    serve_list(Rest, M, Meetings + 1, none).

%% Nobody waiting: take a request (it becomes the waiting one), unless M meetings are done.
broker(M, M) -> M;
broker(M, Meetings) ->
    receive {request, P1, C1} -> broker(M, Meetings, P1, C1) end.

%% One waiting: the next request in mailbox order is its partner.
broker(M, Meetings, P1, C1) ->
    receive
        {request, P2, C2} ->
            P1 ! {meet, P2, C2},
            P2 ! {meet, P1, C1},
            broker(M, Meetings + 1)
    end.

%% After the last meeting: refuse every request with stop, sum the C reports.
collect(0, Counts, Self, Colours) -> {Counts, Self, Colours};
collect(Left, Counts, Self, Colours) ->
    receive
        {request, P, _} ->
            P ! stop,
            collect(Left, Counts, Self, Colours);
        {report, K, S, Colour} ->
            collect(Left - 1, [K | Counts], Self + S, Colours + Colour)
    end.

%% ------------------------------------------------------------------ a creature

creature(Broker, Colour) ->
    Broker ! {request, self(), Colour},
    creature(Broker, self(), Colour, 0, 0).

creature(Broker, Me, Colour, Count, Self) ->
    receive
        {meet, Partner, PartnerColour} ->
            New = complement(Colour, PartnerColour),
            Self1 = case Partner of
                        Me -> Self + 1;
                        _ -> Self
                    end,
            Broker ! {request, Me, New},
            creature(Broker, Me, New, Count + 1, Self1);
        stop ->
            Broker ! {report, Count, Self, Colour}
    end.

complement(A, A) -> A;
complement(A, B) -> 3 - A - B.
