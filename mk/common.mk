# SPDX-License-Identifier: GPL-2.0
#
# What the C sub-Makefiles share (lib, tools, tests/progs, tests/ring,
# tests/unit): the default flags, the warnings, the quiet/verbose output,
# the compile and link recipes, and building lib/ first.  Include it after
# setting TOP:
#
#   TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
#   include $(TOP)/mk/common.mk
#
# Then add to BASE_CFLAGS (ALL_CFLAGS follows it) and use the recipes:
#   $(compile)                 %.o from %.c, with a dependency file
#   $(call prog,LIBS)          a program from one source ($<), with a
#                              dependency file, LDFLAGS_PROG (e.g. -static)
#   $(call link,OBJS,LIBS[,FLAGS])  a program from objects; FLAGS go with
#                              CFLAGS (e.g. the sanitizers)
#
#   CFLAGS=-O2 -g  EXTRA_CFLAGS=  WERROR=0 (drop -Werror)  V=1 (verbose)

# the rules below must not become the includer's default goal
common_mk_goal := $(.DEFAULT_GOAL)

CFLAGS ?= -O2 -g
WERROR ?= 1
WARNINGS := -Wall -Wextra $(if $(filter 0,$(WERROR)),,-Werror)
LIBSRC := $(TOP)/lib
# always needed, whatever CFLAGS says; the Makefile adds its own
BASE_CFLAGS := -std=gnu11 -D_GNU_SOURCE
# recursive: sees what the Makefile adds to BASE_CFLAGS after the include
ALL_CFLAGS = $(BASE_CFLAGS) $(WARNINGS) $(CFLAGS) $(EXTRA_CFLAGS)

# the directory in messages: lib, tools, tests/unit, ...
MSG_DIR := $(patsubst $(TOP)/%,%,$(abspath $(dir $(firstword $(MAKEFILE_LIST)))))

ifeq ($(V),1)
Q :=
msg :=
else ifneq ($(findstring s,$(firstword -$(MAKEFLAGS))),)
Q := @
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' '$(1)' '$(2)';
endif

compile = $(call msg,CC,$(MSG_DIR)/$@)$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

prog = $(call msg,CC,$(MSG_DIR)/$@)$(CC) $(ALL_CFLAGS) -MMD -MP \
	$(LDFLAGS_PROG) $(LDFLAGS) -o $@ $< $(1)

link = $(call msg,LINK,$(MSG_DIR)/$@)$(CC) $(CFLAGS) $(3) $(LDFLAGS) \
	-o $@ $(1) $(2)

# the library, built by its own Makefile whenever a program links it
ifneq ($(MSG_DIR),lib)
$(LIBSRC)/libpmuctx.so $(LIBSRC)/libpmuctx.a: FORCE
	$(Q)$(MAKE) --no-print-directory -C $(LIBSRC) all
endif

FORCE:

.PHONY: FORCE

.DEFAULT_GOAL := $(common_mk_goal)
