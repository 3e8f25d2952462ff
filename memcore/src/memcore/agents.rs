//! Agent profiles on the handle: set one, show one with the agent's newest memories, and add
//! a memory of an agent's own (seed 003's `agent profile` and `agent remember`).

use super::Memcore;
use crate::agent::{
    AgentProfile, AgentRememberRequest, AgentRequest, AgentView, DEFAULT_RECENT_LIMIT,
    RESERVED_COLLECTIONS, profile_memory, profile_of, profile_ref,
};
use crate::{
    AGENT_KEY, Error, Filter, ListOptions, Memory, MemorySummary, NewMemory, PutMode, Result,
};

impl Memcore {
    /// Sets the profile of `profile.agent` (the whole profile: a new version replaces the
    /// old), kept as the memory `agents/<id>`.
    ///
    /// ```
    /// use memcore::Memcore;
    /// use memcore::agent::{AgentProfile, AgentRememberRequest, AgentRequest};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let memcore = Memcore::open(dir.path())?;
    /// memcore.agent_set(&AgentProfile::new("loom").persona("A patient weaver of stories."))?;
    /// memcore.agent_remember(&AgentRememberRequest::new("loom", "Prefers wool to acrylic."))?;
    ///
    /// let view = memcore.agent_profile(&AgentRequest::new("loom"))?;
    /// assert_eq!(view.profile.persona.as_deref(), Some("A patient weaver of stories."));
    /// assert_eq!((view.total, view.memories[0].title.as_str()), (1, "Prefers wool to acrylic."));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Validation`] for an id that is not one.
    pub fn agent_set(&self, profile: &AgentProfile) -> Result<AgentProfile> {
        profile_ref(&profile.agent)?;
        let stored = self.put_with(profile_memory(profile), PutMode::Upsert)?;
        profile_of(&stored)
    }

    /// The profile of `request.agent` with its newest memories (by last change, at most
    /// `limit`, else the profile's `recent_limit`, else 10) and how many it owns.
    ///
    /// # Errors
    ///
    /// [`Error::NotFound`] for an agent without a profile.
    pub fn agent_profile(&self, request: &AgentRequest) -> Result<AgentView> {
        let profile = self.agent(&request.agent)?;
        let limit = request.limit.or(profile.recent_limit).unwrap_or(DEFAULT_RECENT_LIMIT);
        let mut owned = self.memories_of(&profile.agent)?;
        owned.sort_by(|a, b| b.updated_at.cmp(&a.updated_at).then_with(|| a.id.cmp(&b.id)));
        let total = owned.len();
        owned.truncate(limit);
        Ok(AgentView { profile, memories: owned, total })
    }

    /// Stores a memory of the agent's own (its `agent` metadata names it, and it is
    /// `created_by` the agent), which the agent's view of a search finds and other agents'
    /// do not.
    ///
    /// # Errors
    ///
    /// [`Error::NotFound`] for an agent without a profile; [`Error::Conflict`] when the agent
    /// owns `max_memories` already.
    pub fn agent_remember(&self, request: &AgentRememberRequest) -> Result<Memory> {
        let profile = self.agent(&request.agent)?;
        if let Some(max) = profile.max_memories {
            let owned = self.memories_of(&profile.agent)?.len();
            if owned >= max {
                return Err(Error::conflict(
                    format!("agent {} owns {owned} memories, its limit", profile.agent),
                    "raise its profile's max_memories, or delete some of its memories",
                ));
            }
        }
        if let Some(collection) =
            request.collection.as_deref().filter(|c| RESERVED_COLLECTIONS.contains(c))
        {
            return Err(Error::validation(
                format!("collection {collection} holds memcore's own records"),
                "remember into another collection (or the store's default)",
            ));
        }
        let mut memory = NewMemory::new(request.content.clone()).tags(request.tags.clone());
        memory.title.clone_from(&request.title);
        memory.collection.clone_from(&request.collection);
        memory.created_by = Some(profile.agent.clone());
        memory.metadata.insert(AGENT_KEY.into(), profile.agent.clone().into());
        // Created, never replaced: the same text remembered by two agents is two memories,
        // and a memory of someone else's is never taken over.
        let base = self.complete(memory.clone(), self.now())?.id;
        self.put_new(memory, base.as_str())
    }

    /// The profile of `agent`, or a not-found error saying how to make one.
    fn agent(&self, agent: &str) -> Result<AgentProfile> {
        let reference = profile_ref(agent)?;
        match self.existing(&reference)? {
            Some(memory) => profile_of(&memory),
            None => Err(Error::not_found(
                format!("agent {agent}"),
                "give it a profile first (`agent_set`, `memcore agent set`)",
            )),
        }
    }

    /// The memories `agent` owns (its `agent` metadata names it), by collection and id.
    fn memories_of(&self, agent: &str) -> Result<Vec<MemorySummary>> {
        let mut owned = ListOptions::new();
        owned.filters.push(Filter::new(AGENT_KEY, [agent])?);
        Ok(self.list(&owned)?.memories)
    }
}
