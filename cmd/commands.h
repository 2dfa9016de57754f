/* commands.h: every subcommand of routelab, one cmd_x(argc, argv) each. */
#ifndef RL_COMMANDS_H
#define RL_COMMANDS_H

int cmd_sample(int argc, char **argv);
int cmd_bound(int argc, char **argv);
int cmd_mixing(int argc, char **argv);
int cmd_concentration(int argc, char **argv);
int cmd_scoregap(int argc, char **argv);
int cmd_farmass(int argc, char **argv);
int cmd_values(int argc, char **argv);
int cmd_stylized(int argc, char **argv);
int cmd_theory(int argc, char **argv);
int cmd_data(int argc, char **argv);
int cmd_train(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_reproduce(int argc, char **argv);
int cmd_bench(int argc, char **argv);

#endif
