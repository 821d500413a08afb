%% concbench for Erlang/OTP: the protocol front end (the table, arguments, JSON lines, exit status).
%% Started as `erl ... -run concbench main -extra <protocol arguments>`; the arguments after
%% -extra are read with init:get_plain_arguments/0 so that flags such as --model reach us intact.
%%
%%   ... -extra describe
%%   ... -extra <benchmark> --model M --param P --iterations K [--workers W] [--option key=value]...
%%
%% table/0 below is the one declaration of what this implementation serves: `describe` prints
%% it, and every argument check reads it (the generic domain checks of check_request/1, then
%% each benchmark's spec/2 for the combinations a domain cannot express). Any argument error:
%% one line on stderr, nothing on stdout, exit status 2 (erlang:halt(2)).
-module(concbench).
-export([main/0, main/1]).

-define(MODEL, "processes").
-define(PREFIX, "concbench-erlang: ").

%% The VM's default process limit is 262144; the run itself needs a few dozen system processes.
%% Whatever spawns one process per worker, creature or chunk is bounded by this.
-define(MAX_PROCS, 200000).
%% The reason of an option's bound that MAX_PROCS sets (describe's "reason"): What spawns the processes.
-define(PROCS(What), What "; the VM's default process limit is 262 144").
%% big: the bound on the entries of all per-worker neighbour tables together (see spec/2).
-define(MAX_TABLE_ENTRIES, 100000000).
%% The Cowichan kernels: the largest matrix side n (a sanity bound; memory runs out long before).
-define(COWICHAN_MAX_N, 1000000).

%% ---------------------------------------------------------------- the table

%% Models: {Name, one-line description}.
models() ->
    [{?MODEL, "Erlang processes and asynchronous messages: a process per worker, creature, chunk, "
      "row block, ring member, fork or philosopher"}].

%% Benchmarks: {Id, Param domain, [{Model, Shapes (faithful first), [{Key, Domain, Default}]}]}.
%% A domain is {int, Min, Max} (either bound may be none), {values, [String]} or
%% {pattern, Regex}; Default is a string or none. `shape` is not among the options. An option's
%% {int, Min, Max, Reason} is narrower than its benchmark declares (benchmarks/<id>.toml), for Reason.
table() ->
    [{"big", {int, 1, ?MAX_PROCS},
      [{?MODEL, ["processes", "tuple"],
        [{"pings", {int, 0, none}, "16000"},
         {"hood", {int, 1, none}, "1000"}]}]},
     %% --param is C with variant=encore (2..MAX_PROCS, checked in spec/2) and n, the meetings
     %% per game, with variant=redux (at least 1): the union of the two.
     {"chameneos", {int, 1, none},
      [{?MODEL, ["message"],
        [{"variant", {values, ["encore", "redux"]}, "encore"},
         {"meetings", {int, 1, none}, "8000000"}]}]},
     %% n! of n up to 20 fits 64 bits (the spec's checksum width); chunks bounds the processes
     %% of per-chunk (at most min(chunks, n!)); n-processes takes no chunks (it is n).
     {"fannkuch", {int, 1, 20},
      [{?MODEL, ["n-processes", "per-chunk", "pool"],
        [{"chunks", {int, 1, ?MAX_PROCS,
                     ?PROCS("per-chunk spawns one process per chunk, min(chunks, n!) in all")}, "150"}]}]}] ++
    %% The Cowichan family (chain.md): every one takes p, nelts and seed (the stages that do not
    %% use one accept and ignore it); nelts absent is n. A process per row block; `lists` (the
    %% faithful shape) holds the matrices as the paper's lists of lists, copied in every message,
    %% `blocks` as binaries, which travel by reference.
    [{Id, {int, 1, ?COWICHAN_MAX_N},
      [{?MODEL, ["lists", "blocks"],
        [{"p", {int, 0, 100}, "1"},
         {"nelts", {int, 1, none}, "{param}"},
         {"seed", {int, 0, 16#FFFFFFFF}, "0"}]}]}
     || Id <- ["randmat", "thresh", "winnow", "outer", "product", "chain"]] ++
    %% The coordination workloads (src/cb_coordination.erl), one process per worker: n is bounded
    %% so that the 2n workers (and the queue or coordinator) stay within MAX_PROCS.
    [{Id, {int, 0, none},
      [{?MODEL, [Shape],
        [{"n", {int, 1, ?MAX_PROCS div 2,
                ?PROCS("one process per worker, 2n workers in prodcons and condition")}, "32"}]}]}
     || {Id, Shape} <- [{"mutex", "counter"}, {"prodcons", "queue"},
                        {"condition", "coordinator"}]] ++
    [{"threadring", {int, 0, none},
      [{?MODEL, ["ring"],
        [{"ring", {int, 2, ?MAX_PROCS, ?PROCS("one process per ring member")}, "503"}]}]},
     %% philosophers (ours, docs/benchmarks/philosophers.md; src/cb_philosophers.erl): --param m,
     %% the meals each; n philosophers and n forks, one process each, so 2n within MAX_PROCS.
     {"philosophers", {int, 0, none},
      [{?MODEL, ["ordered"],
        [{"n", {int, 2, ?MAX_PROCS div 2,
                ?PROCS("one process per philosopher and one per fork")}, "5"}]}]}].

%% ---------------------------------------------------------------- entry

main() -> main([]).

main(Args0) ->
    Args = Args0 ++ init:get_plain_arguments(),
    Status =
        try command(Args)
        catch
            throw:{usage, Msg} ->
                log([?PREFIX, Msg]),
                2;
            Class:Reason:Stack ->
                log(io_lib:format(?PREFIX "internal error ~p:~p ~p", [Class, Reason, Stack])),
                1
        end,
    erlang:halt(Status).

command(["describe"]) ->
    emit(json(describe())),
    0;
command(Args) ->
    Req = check_request(parse(Args)),
    run_isolated({Req, spec(maps:get(bench, Req), Req)}).

%% ---------------------------------------------------------------- describe

describe() ->
    {obj, [{"describe",
            {obj, [{"protocol", 1},
                   {"language", "erlang"},
                   {"models", {obj, models()}},
                   {"benchmarks", {obj, [{Id, describe_bench(Param, Models)}
                                         || {Id, Param, Models} <- table()]}}]}}]}.

describe_bench(Param, Models) ->
    {obj, [{"param", domain_json(Param, none)},
           {"models", {obj, [{M, {obj, [{"shapes", {arr, Shapes}},
                                        {"options", {obj, [{K, domain_json(D, Def)}
                                                           || {K, D, Def} <- Opts]}}]}}
                             || {M, Shapes, Opts} <- Models]}}]}.

domain_json({int, Min, Max, Reason}, Default) ->
    {obj, Fields} = domain_json({int, Min, Max}, Default),
    {obj, Fields ++ [{"reason", Reason}]};
domain_json(D, Default) ->
    Body = case D of
               {int, Min, Max} ->
                   {"int", {obj, [{"min", Min} || Min =/= none] ++ [{"max", Max} || Max =/= none]}};
               {values, Vs} -> {"values", {arr, Vs}};
               {pattern, P} -> {"pattern", P}
           end,
    {obj, [Body | [{"default", Default} || Default =/= none]]}.

%% ---------------------------------------------------------------- arguments

usage(Fmt, Args) -> throw({usage, io_lib:format(Fmt, Args)}).

%% The command line as given: benchmark, flags, options (a key given twice: the last one wins).
parse([]) ->
    usage("missing benchmark (usage: describe | <benchmark> --model M --param P --iterations K "
          "[--workers W] [--option key=value]...)", []);
parse(["describe" | _]) -> usage("describe takes no further arguments", []);
parse(["-" ++ _ = Flag | _]) -> usage("expected a benchmark before ~ts", [Flag]);
parse([Bench | Rest]) -> flags(Rest, #{bench => Bench, options => #{}}).

flags([], C) -> C;
flags([F, V | R], C) when F =:= "--model"; F =:= "--param"; F =:= "--iterations"; F =:= "--workers" ->
    flags(R, C#{list_to_atom(tl(tl(F))) => V});
flags(["--option", V | R], C = #{options := Opts}) ->
    case string:split(V, "=") of
        [K, Val] when K =/= "" -> flags(R, C#{options := Opts#{K => Val}});
        _ -> usage("malformed --option '~ts' (want key=value)", [V])
    end;
flags([F], _) when F =:= "--model"; F =:= "--param"; F =:= "--iterations";
                   F =:= "--workers"; F =:= "--option" ->
    usage("~ts needs a value", [F]);
flags([F | _], _) -> usage("unknown argument '~ts'", [F]).

%% Everything the table says: benchmark, model, shape, option keys and values, --param.
check_request(C = #{bench := Bench}) ->
    [usage("missing ~s", [F]) || {K, F} <- [{model, "--model"}, {param, "--param"},
                                            {iterations, "--iterations"}],
                                 not maps:is_key(K, C)],
    {Param, Models} =
        case lists:keyfind(Bench, 1, table()) of
            {_, P, Ms} -> {P, Ms};
            false -> usage("unknown benchmark '~ts' (known: ~s)", [Bench, names(table())])
        end,
    Model = maps:get(model, C),
    {Shapes, Defs} =
        case lists:keyfind(Model, 1, Models) of
            {_, Ss, Ds} -> {Ss, Ds};
            false -> usage("unknown model '~ts' for ~s (known: ~s)", [Model, Bench, names(Models)])
        end,
    Given = maps:get(options, C),
    Shape = case {maps:find("shape", Given), Shapes} of
                {error, []} -> none;
                {error, [First | _]} -> First;
                {{ok, S}, _} ->
                    lists:member(S, Shapes) orelse
                        usage("unknown shape '~ts' for ~s/~s (known: ~s)",
                              [S, Bench, Model, lists:join(", ", Shapes)]),
                    S
            end,
    maps:foreach(
      fun(K, V) ->
              case lists:keyfind(K, 1, Defs) of
                  {_, D, _} -> check_value(D, V, "--option " ++ K);
                  false -> usage("unknown option '~ts' for ~s/~s (known: ~s)",
                                 [K, Bench, Model, lists:join(", ", ["shape" || Shapes =/= []] ++
                                                                    [Key || {Key, _, _} <- Defs])])
              end
      end, maps:remove("shape", Given)),
    check_value(Param, maps:get(param, C), "--param"),
    Iterations = check_value({int, 1, none}, maps:get(iterations, C), "--iterations"),
    Workers = case maps:find(workers, C) of
                  {ok, W} -> check_value({int, 1, ?MAX_PROCS}, W, "--workers");
                  error -> erlang:system_info(schedulers_online)
              end,
    #{bench => Bench, model => Model, shape => Shape, defs => Defs, given => Given,
      param => Param, n => int(maps:get(param, C)), iterations => Iterations, workers => Workers}.

names(Entries) -> lists:join(", ", [element(1, E) || E <- Entries]).

%% A value against its domain (describe.md): the value (an integer for int domains) or exit 2.
check_value(D, S, What) ->
    case in_domain(D, S) of
        {ok, V} -> V;
        {error, Why} -> usage("~ts ~ts: ~s", [What, S, Why])
    end.

in_domain({int, Min, Max, _Reason}, S) -> in_domain({int, Min, Max}, S);
in_domain({int, Min, Max}, S) ->
    case parse_int(S) of
        {ok, V} when Min =/= none, V < Min; Max =/= none, V > Max ->
            {error, ["out of range ", bounds(Min, Max)]};
        {ok, V} -> {ok, V};
        error -> {error, "not a decimal integer"}
    end;
in_domain({values, Vs}, S) ->
    case lists:member(S, Vs) of
        true -> {ok, S};
        false -> {error, ["expected one of ", lists:join(", ", Vs)]}
    end;
in_domain({pattern, P}, S) ->
    try re:run(S, "\\A(?:" ++ P ++ ")\\z", [unicode, {capture, none}]) of
        match -> {ok, S};
        nomatch -> {error, ["does not match ", P]}
    catch error:badarg -> {error, ["does not match ", P]}
    end.

bounds(Min, none) -> io_lib:format("(at least ~b)", [Min]);
bounds(none, Max) -> io_lib:format("(at most ~b)", [Max]);
bounds(Min, Max) -> io_lib:format("~b..~b", [Min, Max]).

%% A decimal integer: an optional '-', then digits only (list_to_integer alone also takes '+').
parse_int("+" ++ _) -> error;
parse_int(S) ->
    try list_to_integer(S) of
        V -> {ok, V}
    catch error:badarg -> error
    end.

int(S) -> {ok, V} = parse_int(S), V.

%% An option's value: the one given, else the table's default.
option(#{given := Given, defs := Defs}, Key) ->
    case maps:find(Key, Given) of
        {ok, V} -> V;
        error -> {_, _, Default} = lists:keyfind(Key, 1, Defs), Default
    end.

given(#{given := Given}, Key) -> maps:is_key(Key, Given).

%% ---------------------------------------------------------------- per benchmark

%% The kernel call for a checked request, after the combinations no domain can express.
spec("big", R = #{shape := Shape, n := N}) ->
    H = int(option(R, "hood")),
    %% Every worker holds its own copy of its neighbourhood's table (as the thesis' program),
    %% N * min(H, N) entries in all: bounded so that the copies fit in memory (about 1.6 GB as
    %% lists at the bound; the paper's largest size, N = 8000 and H = 1000, has 8 million).
    N * min(H, N) =< ?MAX_TABLE_ENTRIES orelse
        usage("--param ~b with hood=~b: the per-worker neighbour tables would hold ~b entries "
              "(at most ~b)", [N, H, N * min(H, N), ?MAX_TABLE_ENTRIES]),
    {big, list_to_atom(Shape), N, int(option(R, "pings")), H};
spec("chameneos", R = #{n := N}) ->
    case option(R, "variant") of
        "encore" ->
            N >= 2 andalso N =< ?MAX_PROCS orelse
                usage("--param ~b: variant=encore needs 2..~b creatures", [N, ?MAX_PROCS]),
            {chameneos, encore, N, int(option(R, "meetings"))};
        "redux" ->
            given(R, "meetings") andalso
                usage("--option meetings belongs to variant=encore; with variant=redux the "
                      "meetings per game are --param", []),
            {chameneos, redux, N}
    end;
spec("fannkuch", R = #{shape := Shape, n := N, workers := W}) ->
    K = case Shape of
            "n-processes" ->
                given(R, "chunks") andalso
                    usage("--option chunks does not apply to shape n-processes (it spawns "
                          "exactly n processes, one (n-1)! block each)", []),
                N;
            _ -> int(option(R, "chunks"))
        end,
    {fannkuch, list_to_atom(Shape), N, K, W};
spec("threadring", R = #{n := N}) ->
    {threadring, N, int(option(R, "ring"))};
spec("philosophers", R = #{n := M}) ->
    {philosophers, int(option(R, "n")), M};
spec(Bench, R = #{n := M}) when Bench =:= "mutex"; Bench =:= "prodcons"; Bench =:= "condition" ->
    {coordination, list_to_atom(Bench), int(option(R, "n")), M};
spec(Bench, R = #{shape := Shape, n := N, workers := W}) ->
    Nelts = case given(R, "nelts") of
                true -> int(option(R, "nelts"));
                false -> N
            end,
    {cowichan, list_to_atom(Bench), list_to_atom(Shape),
     #{n => N, p => int(option(R, "p")), nelts => Nelts, seed => int(option(R, "seed")),
       workers => W}}.

%% ---------------------------------------------------------------- running

%% The process that `-run` starts traps exits, so every linked process that ended would leave an
%% 'EXIT' message in its mailbox, and selective receives (the chameneos broker's) would crawl
%% past them. The benchmarks therefore run in a fresh process that does not trap exits and links
%% to what it spawns: if any of those crashes, the runner dies too and we exit with status 1.
run_isolated(Job) ->
    {Pid, Ref} = spawn_monitor(fun() -> run(Job) end),
    receive
        {'DOWN', Ref, process, Pid, normal} -> 0;
        {'DOWN', Ref, process, Pid, Reason} ->
            log(io_lib:format(?PREFIX "run failed: ~p", [Reason])),
            1
    end.

run({#{model := Model, iterations := Iterations}, Spec}) ->
    emit(json({obj, [{"hello", {obj, [{"protocol", 1}, {"language", "erlang"},
                                      {"runtime", runtime()}, {"model", Model}]}}]})),
    case iterate(0, Iterations, prepare(Spec), []) of
        [] -> ok;
        Metrics -> emit(json({obj, [{"metrics", {obj, [{atom_to_list(K), V} || {K, V} <- Metrics]}}]}))
    end.

iterate(I, K, _Spec, Metrics) when I =:= K -> Metrics;
iterate(I, K, Spec, _) ->
    {Ns, Result, Metrics} = kernel(Spec),
    emit(json({obj, [{"iteration", I}, {"ns", Ns}, {"result", Result}]})),
    iterate(I + 1, K, Spec, Metrics).

%% Before the first iteration, untimed: a standalone Cowichan stage's input (chain.md rule 3).
prepare({cowichan, Bench, Shape, Cfg}) ->
    {cowichan, Bench, Shape, Cfg, cb_cowichan:prepare(Bench, Shape, Cfg)};
prepare(Spec) -> Spec.

kernel({big, Shape, N, P, H}) -> cb_big:iteration(Shape, N, P, H);
kernel({chameneos, encore, C, M}) -> cb_chameneos:encore(C, M);
kernel({chameneos, redux, N}) -> cb_chameneos:redux(N);
kernel({fannkuch, Shape, N, K, W}) -> cb_fannkuch:iteration(Shape, N, K, W);
kernel({coordination, Bench, N, M}) -> cb_coordination:Bench(N, M);
kernel({threadring, N, R}) -> cb_coordination:threadring(N, R);
kernel({philosophers, N, M}) -> cb_philosophers:ordered(N, M);
kernel({cowichan, Bench, Shape, Cfg, Input}) -> cb_cowichan:iteration(Bench, Shape, Cfg, Input).

runtime() ->
    lists:flatten(io_lib:format("Erlang/OTP ~s (ERTS ~s, ~s)",
                                [erlang:system_info(otp_release), erlang:system_info(version),
                                 erlang:system_info(emu_flavor)])).

%% ---------------------------------------------------------------- output

%% One protocol line on stdout; io:put_chars waits for the io server, so the line is out
%% before we go on (and before erlang:halt/1, which flushes the port). json/1 writes ASCII only.
emit(IoList) -> io:put_chars(standard_io, [IoList, $\n]).

%% One line on stderr (newlines inside become spaces), written as UTF-8 bytes.
log(IoList) ->
    Text = lists:flatten(io_lib:format("~ts", [IoList])),
    Line = [case Ch of $\n -> $\s; $\r -> $\s; _ -> Ch end || Ch <- Text],
    file:write(standard_error, [unicode:characters_to_binary(Line), $\n]).

%% A small JSON writer (OTP 25 has no json module). Values: {obj, [{Key, Value}]} (keys in the
%% given order), {arr, [Value]}, integers, finite floats, true/false/null, and strings as
%% character lists or UTF-8 binaries. The output is ASCII: every other character is escaped.
json({obj, Pairs}) ->
    [${, lists:join(", ", [[json_string(K), ": ", json(V)] || {K, V} <- Pairs]), $}];
json({arr, Items}) -> [$[, lists:join(", ", [json(V) || V <- Items]), $]];
json(true) -> "true";
json(false) -> "false";
json(null) -> "null";
json(V) when is_integer(V) -> integer_to_list(V);
json(V) when is_float(V) -> float_to_list(V, [short]);
json(S) when is_list(S); is_binary(S) -> json_string(S).

json_string(S) when is_binary(S) -> json_string(unicode:characters_to_list(S));
json_string(S) -> [$", [esc(Ch) || Ch <- S], $"].

esc($") -> "\\\"";
esc($\\) -> "\\\\";
esc($\n) -> "\\n";
esc($\r) -> "\\r";
esc($\t) -> "\\t";
esc($\b) -> "\\b";
esc($\f) -> "\\f";
esc(Ch) when Ch >= 32, Ch < 127 -> Ch;
esc(Ch) when Ch < 16#10000 -> u4(Ch);
esc(Ch) ->                                           % beyond the BMP: a UTF-16 surrogate pair
    V = Ch - 16#10000,
    [u4(16#D800 bor (V bsr 10)), u4(16#DC00 bor (V band 16#3FF))].

u4(V) -> io_lib:format("\\u~4.16.0b", [V]).
